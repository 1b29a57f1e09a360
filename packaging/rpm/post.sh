# smsupd %post ($1: 1 install, 2 upgrade): the group smsupd and the state
# and log directories; nothing enabled, nothing restarted (as the .deb).
if command -v systemd-sysusers >/dev/null 2>&1; then
  systemd-sysusers smsupd.conf
elif ! getent group smsupd >/dev/null; then
  groupadd --system smsupd
fi
if command -v systemd-tmpfiles >/dev/null 2>&1; then
  systemd-tmpfiles --create smsupd.conf
fi
if [ -d /run/systemd/system ]; then
  systemctl daemon-reload || true
fi
exit 0
