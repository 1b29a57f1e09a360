# smsupd %postun: systemd forgets the removed units; an upgrade restarts
# nothing (README "Upgrading").
if [ -d /run/systemd/system ]; then
  systemctl daemon-reload || true
fi
exit 0
