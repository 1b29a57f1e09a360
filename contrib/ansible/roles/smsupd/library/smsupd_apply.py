#!/usr/bin/python3
# smsupd_apply: puts a rendered smsupd.yaml in place and applies it, with
# the key files smsupd_key_files wrote before, through smctl, the way an operator does: `smctl validate`,
# `smctl plan --exit-code`, then `smctl reload --wait`. Read the role's
# README first.

DOCUMENTATION = r"""
module: smsupd_apply
short_description: Apply an smsupd.yaml and new key files through smctl (validate, plan, reload --wait)
description:
  - Validates I(src) offline and asks the daemon what it would change
    (C(smctl plan --exit-code)); in check mode it stops there and reports the
    change, with the file diff and the plan in diff mode.
  - The key files that smsupd_key_files wrote (I(key_files_changed), paths
    only: this module never sees a key) are a change too, named in the diff
    and applied; their content is never read.
  - Otherwise installs I(src) as I(dest) and, when the plan or a key file
    changes anything, applies it with C(smctl reload --wait); the daemon
    verifies the P_Key tables on the fabric and rolls a failed change back
    itself.
  - A failed reload (rolled back, or refused) puts the previous I(dest) and
    key files back (from C(FILE.smsupd-previous)) and fails with smctl's message, so the files and the
    running config agree.
  - When no daemon answers, the files are only installed (smsupd reads them at start).
options:
  src: {description: the rendered candidate on the managed node, type: path, required: true}
  dest: {description: the config file the daemon reads, type: path, required: true}
  smctl: {description: the smctl program, type: str, default: smctl}
  socket: {description: smctl --socket, type: str}
  instance: {description: smctl -i (smsupd@NAME.service), type: str}
  timeout: {description: seconds for the verification (smctl reload --timeout), type: float}
  key_files_changed: {description: key files smsupd_key_files wrote (or would write in check mode), type: list, elements: path}
  key_files_created: {description: those of them that did not exist before, type: list, elements: path}
  sm_key_file: {description: sm.sm_key_file of src, type: path}
  m_key_file: {description: sm.m_key_file of src, type: path}
  sa_key_file: {description: sm.sa_key_file of src, type: path}
"""

import json
import os
import tempfile

from ansible.module_utils.basic import AnsibleModule

UNREACHABLE = 3  # smctl: no daemon answers
KEYS = ("sm_key", "m_key", "sa_key")
PREVIOUS = ".smsupd-previous"  # smsupd_key_files keeps a changed key file's previous content there


def read(path):
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except FileNotFoundError:
        return None


def install(module, text, dest):
    """Writes text to dest atomically, root-owned, mode 0644 (no key in it)."""
    directory = os.path.dirname(dest) or "."
    fd, scratch = tempfile.mkstemp(dir=directory, prefix=".smsupd-apply.")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.chmod(scratch, 0o644)
    module.atomic_move(scratch, dest)


def restore_key_files(changed, created):
    """Puts back each key file smsupd_key_files changed: the previous
    content it kept, or no file where there was none."""
    for path in changed:
        try:
            if path in created:
                os.unlink(path)
            else:
                os.rename(path + PREVIOUS, path)
        except FileNotFoundError:
            pass


def drop_previous(changed):
    for path in changed:
        try:
            os.unlink(path + PREVIOUS)
        except FileNotFoundError:
            pass


def validate(run_apart, src, pending):
    """smctl validate --json; in check mode the errors about a key file the
    run would write are left out (it is not written). (rc, text) like
    smctl's."""
    rc, out, err = run_apart("validate", src, "--json")
    try:  # the JSON document on stdout; smctl's reason on stderr
        document = json.loads(out)
    except ValueError:
        document = None
    if not isinstance(document, dict):
        return rc, (out + err).strip()
    pending_paths = {"sm." + name + "_file" for name, path in pending}
    errors = [error for error in document.get("errors", []) if error.get("path") not in pending_paths]
    lines = ["%s:%s:%s: error: %s: %s%s" % (e.get("file"), e.get("line"), e.get("column"), e.get("path"),
                                              e.get("message"), "; " + e["hint"] if e.get("hint") else "")
             for e in errors]
    return (1 if errors else 0), "\n".join(lines)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            src=dict(type="path", required=True),
            dest=dict(type="path", required=True),
            smctl=dict(type="str", default="smctl"),
            socket=dict(type="str"),
            instance=dict(type="str"),
            timeout=dict(type="float"),
            key_files_changed=dict(type="list", elements="path", default=[]),
            key_files_created=dict(type="list", elements="path", default=[]),
            sm_key_file=dict(type="path", no_log=False),
            m_key_file=dict(type="path", no_log=False),
            sa_key_file=dict(type="path", no_log=False),
        ),
        mutually_exclusive=[("socket", "instance")],
        supports_check_mode=True,
    )
    params = module.params
    smctl = [params["smctl"]]
    if params["socket"]:
        smctl += ["--socket", params["socket"]]
    if params["instance"]:
        smctl += ["-i", params["instance"]]

    def run_apart(*args):
        return module.run_command(smctl + list(args))

    def run(*args):
        rc, out, err = run_apart(*args)
        return rc, (out + err).strip()

    keys_changed = sorted(params["key_files_changed"])
    keys_created = params["key_files_created"]
    pending = [(name, params[name + "_file"]) for name in KEYS
               if module.check_mode and params[name + "_file"] in keys_changed]
    rc, text = validate(run_apart, params["src"], pending)
    if rc != 0:
        if not module.check_mode:
            restore_key_files(keys_changed, keys_created)
        module.fail_json(msg="smctl validate: " + text, rc=rc)

    new = read(params["src"])
    old = read(params["dest"])
    file_changed = new != old
    rc, plan = run("plan", params["src"], "--exit-code")
    reachable = rc != UNREACHABLE
    if reachable and rc not in (0, 1):
        if not module.check_mode:
            restore_key_files(keys_changed, keys_created)
        module.fail_json(msg="smctl plan: " + plan, rc=rc)
    plan_changes = reachable and rc == 1

    diff = []
    if file_changed:
        diff.append({"before_header": params["dest"], "after_header": params["dest"] + " (from the inventory)",
                     "before": old or "", "after": new})
    if keys_changed:
        diff.append({"prepared": "".join("key file %s: new key (root, 0600; not shown)\n" % path
                                         for path in keys_changed)})
    if plan_changes:
        diff.append({"prepared": "smctl plan:\n" + plan + "\n"})
    result = dict(changed=file_changed or plan_changes or bool(keys_changed), plan=plan if plan_changes else "",
                  plan_changes=plan_changes, key_files_changed=keys_changed, applied=False, diff=diff)
    if not reachable:
        module.warn("no smsupd answers (" + plan + "); " + params["dest"] + " is only installed")
    if module.check_mode or not result["changed"]:
        module.exit_json(**result)

    installed = False

    def undo(msg, **fields):
        restore_key_files(keys_changed, keys_created)
        if installed and old is None:
            os.unlink(params["dest"])
        elif installed:
            install(module, old, params["dest"])
        module.fail_json(msg=msg, restored=params["dest"], **fields)

    if file_changed:
        install(module, new, params["dest"])
        installed = True
    if reachable and (plan_changes or keys_changed):
        args = ["reload", "--wait"]
        if params["timeout"]:
            args += ["--timeout", str(params["timeout"])]
        rc, text = run(*args)
        if rc != 0:
            undo("smctl reload: " + text, rc=rc, plan=plan)
        result["applied"] = True
        result["reload"] = text
    drop_previous(keys_changed)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
