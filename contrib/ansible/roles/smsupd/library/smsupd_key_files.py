#!/usr/bin/python3
# smsupd_key_files: writes OpenSM's keys (SM_Key, M_Key, SA_Key) to the key
# files smsupd.yaml names. The role runs it with no_log: true, so nothing it
# returns is shown; what the role shows (which files change, a refusal) is
# in the fields below, which never hold a key. smsupd_apply then applies
# the key files and, when the apply fails, puts the previous ones back.

DOCUMENTATION = r"""
module: smsupd_key_files
short_description: Write smsupd's key files (root, 0600), keeping the previous ones until the apply
description:
  - Writes each key given (I(sm_key), I(m_key), I(sa_key)) to its key file,
    root-owned, mode 0600 from its creation on, renamed into place, when its
    content differs.
  - The previous content of a changed key file is kept in C(FILE.smsupd-previous)
    (root, 0600) until smsupd_apply has applied the change; smsupd_apply puts
    it back when the apply fails, and removes it otherwise.
  - A key is never returned. A malformed key, or a key without its file, is
    returned in I(refused) (the option named, never the value), and nothing is
    written, for the role to fail on: the task runs with no_log, which would
    hide a failure's message.
  - In check mode nothing is written; I(key_files_changed) lists the files a
    run would write.
options:
  sm_key: {description: the SM_Key (a number, or 0x + 1 to 16 hex digits), type: raw}
  m_key: {description: the M_Key, type: raw}
  sa_key: {description: the SA_Key, type: raw}
  sm_key_file: {description: where sm_key is written (sm.sm_key_file), type: path}
  m_key_file: {description: where m_key is written (sm.m_key_file), type: path}
  sa_key_file: {description: where sa_key is written (sm.sa_key_file), type: path}
"""

RETURN = r"""
key_files_changed: {description: the key files written (check mode, that would be), type: list}
key_files_created: {description: those of them that did not exist, type: list}
refused: {description: why nothing was written (no key in it); empty when all went well, type: str}
"""

import os
import re
import tempfile

from ansible.module_utils.basic import AnsibleModule

KEYS = ("sm_key", "m_key", "sa_key")
HEX_KEY = re.compile(r"^0[xX][0-9a-fA-F]{1,16}$")
PREVIOUS = ".smsupd-previous"


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


def current(path):
    try:
        with open(path, encoding="ascii", errors="replace") as handle:
            return handle.read()
    except FileNotFoundError:
        return None


def wanted_keys(params):
    """({key file: content} for each key given, "" or why it is refused)."""
    wanted = {}
    for name in KEYS:
        value = params[name]
        if value is None or (isinstance(value, str) and not value.strip()):
            continue
        path = params[name + "_file"]
        if not path:
            return {}, "%s is given but %s_file is not: where would it be written?" % (name, name)
        if not os.path.isabs(path):
            return {}, "%s_file %s is not an absolute path" % (name, path)
        text = key_content(value)
        if text is None:
            return {}, "%s is not a 64-bit key: give a number or 0x followed by 1 to 16 hex digits" % name
        wanted[path] = text
    return wanted, ""


def main():
    module = AnsibleModule(
        argument_spec=dict(
            sm_key=dict(type="raw", no_log=True),
            m_key=dict(type="raw", no_log=True),
            sa_key=dict(type="raw", no_log=True),
            sm_key_file=dict(type="path", no_log=False),
            m_key_file=dict(type="path", no_log=False),
            sa_key_file=dict(type="path", no_log=False),
        ),
        supports_check_mode=True,
    )
    wanted, refused = wanted_keys(module.params)
    if refused:
        module.exit_json(changed=False, key_files_changed=[], key_files_created=[], refused=refused)
    changed, created = [], []
    for path, text in sorted(wanted.items()):
        now = current(path)
        if now == text:
            # A previous run that stopped between this module and the apply.
            if not module.check_mode and os.path.lexists(path + PREVIOUS):
                os.unlink(path + PREVIOUS)
            continue
        changed.append(path)
        if now is None:
            created.append(path)
    result = dict(changed=bool(changed), key_files_changed=changed, key_files_created=created, refused="")
    if module.check_mode:
        module.exit_json(**result)
    written = []
    try:
        for path in changed:
            if path not in created:
                write_key_file(path + PREVIOUS, current(path))
            write_key_file(path, wanted[path])
            written.append(path)
    except OSError as error:
        failed = next(path for path in changed if path not in written)
        if failed not in created and os.path.lexists(failed + PREVIOUS):
            os.unlink(failed + PREVIOUS)
        for path in written:
            if path in created:
                os.unlink(path)
            else:
                os.rename(path + PREVIOUS, path)
        result.update(changed=False, key_files_changed=[], key_files_created=[],
                      refused="cannot write key file %s: %s" % (error.filename, error.strerror))
    module.exit_json(**result)


if __name__ == "__main__":
    main()
