"""An employee's work backend other than its chat model (issue 20, item 6): `command.py` runs one."""
