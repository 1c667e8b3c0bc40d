"""The in-place pipeline: walk the paths (`walk`), plan each file's migration and check it
(`engine`), write it safely (`writes`) or show it as a unified diff (`diff`), on several
processes for large runs (`parallel`). `reader` is the read side the `normalize`,
`validate` and `detect` commands use; `paths` names files in reports and diffs."""
