"""The in-place pipeline: plan each file's migration and check it (`engine`), write it
through the file primitives of `fixture_migrate.files` (the walk, safe writes, diffs, the
worker pool). `reader` is the read side the `normalize`, `validate` and `detect` commands
use."""
