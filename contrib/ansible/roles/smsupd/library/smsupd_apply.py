#!/usr/bin/python3
# smsupd_apply: puts a rendered smsupd.yaml in place and applies it through
# smctl, the way an operator does: `smctl validate`, `smctl plan
# --exit-code`, then `smctl reload --wait`. Read the role's README first.

DOCUMENTATION = r"""
module: smsupd_apply
short_description: Apply an smsupd.yaml through smctl (validate, plan, reload --wait)
description:
  - Validates I(src) offline and asks the daemon what it would change
    (C(smctl plan --exit-code)); in check mode it stops there and reports the
    change, with the file diff and the plan in diff mode.
  - Otherwise installs I(src) as I(dest) and, when the plan changes anything,
    applies it with C(smctl reload --wait); the daemon verifies the P_Key
    tables on the fabric and rolls a failed change back itself.
  - A failed reload (rolled back, or refused) puts the previous I(dest) back
    and fails with smctl's message, so the file and the running config agree.
  - When no daemon answers, I(dest) is only installed (smsupd reads it at start).
options:
  src: {description: the rendered candidate on the managed node, type: path, required: true}
  dest: {description: the config file the daemon reads, type: path, required: true}
  smctl: {description: the smctl program, type: str, default: smctl}
  socket: {description: smctl --socket, type: str}
  instance: {description: smctl -i (smsupd@NAME.service), type: str}
  timeout: {description: seconds for the verification (smctl reload --timeout), type: float}
"""

import os
import tempfile

from ansible.module_utils.basic import AnsibleModule

UNREACHABLE = 3  # smctl: no daemon answers


def read(path):
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except FileNotFoundError:
        return None


def install(module, text, dest):
    """Writes text to dest atomically, root-owned, mode 0644 (no secret in it)."""
    directory = os.path.dirname(dest) or "."
    fd, scratch = tempfile.mkstemp(dir=directory, prefix=".smsupd-apply.")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.chmod(scratch, 0o644)
    module.atomic_move(scratch, dest)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            src=dict(type="path", required=True),
            dest=dict(type="path", required=True),
            smctl=dict(type="str", default="smctl"),
            socket=dict(type="str"),
            instance=dict(type="str"),
            timeout=dict(type="float"),
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

    rc, text = run("validate", params["src"])
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

    diff = []
    if file_changed:
        diff.append({"before_header": params["dest"], "after_header": params["dest"] + " (from the inventory)",
                     "before": old or "", "after": new})
    if plan_changes:
        diff.append({"prepared": "smctl plan:\n" + plan + "\n"})
    result = dict(changed=file_changed or plan_changes, plan=plan if plan_changes else "",
                  plan_changes=plan_changes, applied=False, diff=diff)
    if not reachable:
        module.warn("no smsupd answers (" + plan + "); " + params["dest"] + " is only installed")
    if module.check_mode or not result["changed"]:
        module.exit_json(**result)

    if file_changed:
        install(module, new, params["dest"])
    if plan_changes:
        args = ["reload", "--wait"]
        if params["timeout"]:
            args += ["--timeout", str(params["timeout"])]
        rc, text = run(*args)
        if rc != 0:
            if old is None:
                os.unlink(params["dest"])
            elif file_changed:
                install(module, old, params["dest"])
            module.fail_json(msg="smctl reload: " + text, rc=rc, plan=plan, restored=params["dest"])
        result["applied"] = True
        result["reload"] = text
    module.exit_json(**result)


if __name__ == "__main__":
    main()
