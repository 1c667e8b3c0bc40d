"""`fixture-migrate export`: canonical v1 fixtures become the native files of another eval tool.

`pipeline` reads the canonical files, hands each case to the target's adapter
(`adapters/<format>.py`, the module that imports the format also exports it) and
writes DEST through the safe write path; `losses` is the loss report: what the
target cannot hold, per case and field; `native` writes records in each syntax
(JSON Lines, JSON, CSV, YAML).
"""
