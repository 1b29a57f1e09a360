#!/usr/bin/python3
# smsupd_apply: puts a rendered smsupd.yaml and its key files in place and
# applies them through smctl, the way an operator does: `smctl validate`,
# `smctl plan --exit-code`, then `smctl reload --wait`. Read the role's
# README first.

DOCUMENTATION = r"""
module: smsupd_apply
short_description: Apply an smsupd.yaml and its key files through smctl (validate, plan, reload --wait)
description:
  - Validates I(src) offline and asks the daemon what it would change
    (C(smctl plan --exit-code)); in check mode it stops there and reports the
    change, with the file diff and the plan in diff mode.
  - Writes each key given (I(sm_key), I(m_key), I(sa_key)) to its key file,
    root-owned, mode 0600, when its content differs. A key is never shown:
    not in the result, not in a diff, not in a message (the options are
    no_log); a key file that changes is named, its content never.
  - Otherwise installs I(src) as I(dest) and, when the plan or a key file
    changes anything, applies it with C(smctl reload --wait); the daemon
    verifies the P_Key tables on the fabric and rolls a failed change back
    itself.
  - A failed reload (rolled back, or refused) puts the previous I(dest) and
    key files back and fails with smctl's message, so the files and the
    running config agree.
  - When no daemon answers, the files are only installed (smsupd reads them at start).
options:
  src: {description: the rendered candidate on the managed node, type: path, required: true}
  dest: {description: the config file the daemon reads, type: path, required: true}
  smctl: {description: the smctl program, type: str, default: smctl}
  socket: {description: smctl --socket, type: str}
  instance: {description: smctl -i (smsupd@NAME.service), type: str}
  timeout: {description: seconds for the verification (smctl reload --timeout), type: float}
  sm_key: {description: the SM_Key (a number, or 0x + 1 to 16 hex digits) for sm_key_file, type: raw}
  m_key: {description: the M_Key for m_key_file, type: raw}
  sa_key: {description: the SA_Key for sa_key_file, type: raw}
  sm_key_file: {description: where sm_key is written (sm.sm_key_file of src), type: path}
  m_key_file: {description: where m_key is written (sm.m_key_file of src), type: path}
  sa_key_file: {description: where sa_key is written (sm.sa_key_file of src), type: path}
"""

import json
import os
import re
import tempfile

from ansible.module_utils.basic import AnsibleModule

UNREACHABLE = 3  # smctl: no daemon answers
KEYS = ("sm_key", "m_key", "sa_key")
HEX_KEY = re.compile(r"^0[xX][0-9a-fA-F]{1,16}$")


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


def key_content(value):
    """The key file's text for a key given as a number or 0x-hex, else None.
    An unquoted 0x... in YAML is a number, which templating may turn into
    its decimal digits."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        number = value
    elif isinstance(value, str) and HEX_KEY.match(value.strip()):
        number = int(value.strip(), 16)
    elif isinstance(value, str) and value.strip().isdigit():
        number = int(value.strip())
    else:
        return None
    if number < 0 or number >= 1 << 64:
        return None
    return "0x%016x\n" % number


def write_key_file(path, text):
    """Root's, 0600 from its creation on (mkstemp), renamed into place: the
    key is in no file anyone else may read at any moment, and an existing
    file's looser mode is not kept."""
    directory = os.path.dirname(path) or "."
    fd, scratch = tempfile.mkstemp(dir=directory, prefix=".smsupd-key.")
    try:
        with os.fdopen(fd, "w", encoding="ascii") as handle:
            os.fchmod(handle.fileno(), 0o600)
            os.fchown(handle.fileno(), 0, 0)
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.rename(scratch, path)
    except BaseException:
        os.unlink(scratch)
        raise


def restore_key_files(previous):
    for path, text in previous.items():
        if text is None:
            try:
                os.unlink(path)
            except FileNotFoundError:
                pass
        else:
            write_key_file(path, text)


def wanted_keys(module):
    """{key file: content} for each key given; fails (naming the option,
    never the value) on a malformed key or a key without its file."""
    wanted = {}
    for name in KEYS:
        value = module.params[name]
        if value is None or (isinstance(value, str) and not value.strip()):
            continue
        path = module.params[name + "_file"]
        if not path:
            module.fail_json(msg="%s is given but %s_file is not: where would it be written?" % (name, name))
        text = key_content(value)
        if text is None:
            module.fail_json(msg="%s is not a 64-bit key: give a number or 0x followed by 1 to 16 hex digits" % name)
        wanted[path] = text
    return wanted


def changed_keys(wanted):
    """{key file: its content now (None: absent)} for each key file to write."""
    changed = {}
    for path, text in wanted.items():
        try:
            with open(path, encoding="ascii", errors="replace") as handle:
                now = handle.read()
        except FileNotFoundError:
            now = None
        if now != text:
            changed[path] = now
    return changed


def validate(run, src, pending):
    """smctl validate --json; the errors about a key file this run writes
    are left out (it is written only after). (rc, text) like smctl's."""
    rc, out = run("validate", src, "--json")
    try:
        document = json.loads(out.splitlines()[-1]) if out else None
    except ValueError:
        document = None
    if document is None:
        return rc, out
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
            sm_key=dict(type="raw", no_log=True),
            m_key=dict(type="raw", no_log=True),
            sa_key=dict(type="raw", no_log=True),
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

    def run(*args):
        rc, out, err = module.run_command(smctl + list(args))
        return rc, (out + err).strip()

    wanted = wanted_keys(module)
    keys_before = changed_keys(wanted)  # the key files this run writes, as they are now
    pending = [(name, params[name + "_file"]) for name in KEYS if params[name + "_file"] in keys_before]
    rc, text = validate(run, params["src"], pending)
    if rc != 0:
        module.fail_json(msg="smctl validate: " + text, rc=rc)

    new = read(params["src"])
    old = read(params["dest"])
    file_changed = new != old
    rc, plan = run("plan", params["src"], "--exit-code")
    reachable = rc != UNREACHABLE
    if reachable and rc not in (0, 1):
        module.fail_json(msg="smctl plan: " + plan, rc=rc)
    plan_changes = reachable and rc == 1
    keys_changed = sorted(keys_before)

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

    written = {}  # key file -> its content before this run
    installed = False

    def undo(msg, **fields):
        restore_key_files(written)
        if installed and old is None:
            os.unlink(params["dest"])
        elif installed:
            install(module, old, params["dest"])
        module.fail_json(msg=msg, restored=params["dest"], **fields)

    for path in keys_changed:
        try:
            write_key_file(path, wanted[path])
        except OSError as error:
            undo("cannot write key file %s: %s" % (path, error.strerror))
        written[path] = keys_before[path]
    if keys_changed:
        rc, text = run("validate", params["src"])
        if rc != 0:
            undo("smctl validate: " + text, rc=rc)
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
    module.exit_json(**result)


if __name__ == "__main__":
    main()
