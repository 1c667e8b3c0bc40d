"""The file primitives both pipelines share, with no syntax and no adapter in them: the root
rule and directory descriptors (`root`), bounded reads (`reads`), atomic writes (`writes`),
moves and removals (`moves`), the names of a hard-linked file (`hard_links`), the
fault-injection step hooks (`steps`), the walk over PATHS (`walk`, `ignore`), the names of
files in reports (`paths`), unified diffs (`diff`) and the worker pool (`parallel`)."""
