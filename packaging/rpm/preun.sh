# smsupd %preun ($1: 0 erase, 1 upgrade): on erase, stop every smsupd (a
# MASTER hands over first); an upgrade stops nothing.
if [ "$1" -eq 0 ] && [ -d /run/systemd/system ]; then
  systemctl stop smsupd.service 'smsupd@*.service' || true
fi
exit 0
