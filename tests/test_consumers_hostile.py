"""`fixture-migrate consumers --fix` against hostile files and timings: line endings other
than LF, files that are not code (by their suffix), encodings other than UTF-8, hard links,
files that change between the read and the write, and consumer code that names its fixture
relative to itself. A rewrite never touches a file outside the root, nor one that is not
code it read as its own language, and never changes what the code reads."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import fixture_migrate
from fixture_migrate.cli.app import main

LEGACY = {
    "schema_version": "prompt-examples/v1",
    "skill": "a",
    "examples": [{"name": "First", "user_intent": "do it", "gr\u00f6\u00dfe": "L"}],
}
FIXTURE = "skills/a/evals/examples.json"
PY = (
    "import json\n"
    "from pathlib import Path\n"
    'FIXTURE = Path(ROOT) / "skills/a/evals/examples.json"\n'
    "\n"
    "\n"
    "def run():\n"
    "    data = json.loads(FIXTURE.read_text())\n"
    '    return data["examples"][0]["user_intent"]\n'
)


def _repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "skills/a/evals").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / FIXTURE).write_text(json.dumps(LEGACY, indent=2) + "\n")
    (root / "tools").mkdir()
    return root


def _run_python(source: bytes, root: Path) -> object:
    namespace: dict[str, object] = {"ROOT": str(root)}
    exec(compile(source, "consumer.py", "exec"), namespace)
    return namespace["run"]()  # type: ignore[operator]


def _fix(root: Path, *paths: str) -> int:
    """`consumers --fix` over the fixtures and the files `paths` named, else the whole root."""
    named = [str(root / p) for p in paths] or [str(root)]
    return main(["consumers", "--fix", "--repo-root", str(root), str(root / "skills"), *named])


# --- line endings ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "ending",
    [
        pytest.param(lambda text: text.replace("\n", "\r"), id="cr-only"),
        pytest.param(lambda text: text.replace("\n", "\r", 3), id="cr-then-lf"),
        pytest.param(lambda text: text.replace("\n", "\r\n", 4).replace("\n", "\r", 2), id="crlf-cr-lf"),
    ],
)
def test_python_with_lone_cr_line_endings_is_rewritten_at_the_right_place(tmp_path, capsys, ending):
    """libcst counts a lone CR as a line end; the edits were placed by LF lines only, so a
    CR-only module crashed the whole run (IndexError) and a mixed one was edited at the
    wrong characters."""
    root = _repo(tmp_path)
    source = ending(PY).encode()
    (root / "tools/c.py").write_bytes(source)
    (root / "tools/other.py").write_text(PY)
    assert _fix(root) == 0, capsys.readouterr().err
    err = capsys.readouterr().err
    assert "internal error" not in err
    fixed = (root / "tools/c.py").read_bytes()
    assert b'"cases"' in fixed and _run_python(fixed, root) == "do it"
    # Every line ending outside the rewritten read is kept, byte for byte.
    assert fixed.count(b"\r") == source.count(b"\r") and fixed.count(b"\n") == source.count(b"\n")
    assert (root / "tools/other.py").read_text() != PY  # the run went on to the other file


def test_a_cr_only_script_is_reported_at_its_own_line(tmp_path, capsys):
    root = _repo(tmp_path)
    js = f'const data = require("./{FIXTURE}");\r\rconsole.log(data.examples[0].user_intent);\r'
    (root / "tools/c.js").write_bytes(js.encode())
    assert main(["consumers", "--repo-root", str(root), str(root)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("tools/c.js:3:13: member: `user_intent`"), lines


# --- files that are not code -------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, text",
    [
        pytest.param("notes.txt", f'const data = require("{FIXTURE}");\nconsole.log(data.examples[0].user_intent);\n', id="txt"),
        pytest.param("README.md", f'x = require("{FIXTURE}")\nx.examples\n', id="markdown"),
        pytest.param("bin/run", f'#!/usr/bin/env node\nconst d = require("{FIXTURE}");\nd.examples;\n', id="no-suffix"),
    ],
)
def test_a_named_file_that_is_not_code_by_its_suffix_is_never_rewritten(tmp_path, capsys, name, text):
    """A file named on the command line was read as JavaScript whatever its suffix, and
    rewritten when it happened to parse: a text file, a document, a script of any language."""
    root = _repo(tmp_path)
    (root / name).parent.mkdir(parents=True, exist_ok=True)
    (root / name).write_text(text)
    _fix(root, name)
    assert (root / name).read_text() == text
    assert f"{name}:" not in capsys.readouterr().out


def test_a_named_fixture_is_not_read_as_consumer_code(tmp_path, capsys):
    """Naming the fixture itself (so the model holds it) reported it as a JavaScript
    'writer' of a legacy fixture, and the run exited 1 for a site that is not code."""
    root = _repo(tmp_path)
    (root / "tools/c.py").write_text(PY)
    code = main(["consumers", "--repo-root", str(root), str(root / FIXTURE), str(root / "tools/c.py")])
    out = capsys.readouterr().out
    assert not [line for line in out.splitlines() if line.startswith(FIXTURE)], out
    assert code == 1 and out.startswith("tools/c.py:8:12:"), out


def test_the_api_never_rewrites_a_named_file_that_is_not_code(tmp_path):
    root = _repo(tmp_path)
    text = f'const data = require("{FIXTURE}");\nconsole.log(data.examples[0].user_intent);\n'
    (root / "notes.txt").write_text(text)
    found = fixture_migrate.find_consumers(root / "skills", root / "notes.txt", repo_root=root, fix=True)
    assert found == [] and (root / "notes.txt").read_text() == text


# --- encodings ---------------------------------------------------------------------------------


def test_python_that_declares_another_encoding_is_not_rewritten(tmp_path, capsys):
    """A latin-1 module was read as UTF-8 and rewritten in UTF-8: the read of `größe`
    (written `"gr\\xf6\\xdfe"`) became a literal Python then decodes as latin-1, `grÃ¶ÃŸe`,
    so the fixed code read a key no fixture has."""
    root = _repo(tmp_path)
    source = PY.replace('["user_intent"]', '["gr\\xf6\\xdfe"]').encode()
    source = b"# -*- coding: latin-1 -*-\n" + source
    (root / "tools/c.py").write_bytes(source)
    assert _run_python(source, root) == "L"
    _fix(root)
    after = (root / "tools/c.py").read_bytes()
    assert _run_python(after, root) == "L"
    assert after == source
    assert "tools/c.py: not read" in capsys.readouterr().err and "latin-1" in after.decode("latin-1")


def test_a_named_python_file_in_another_encoding_is_an_error(tmp_path, capsys):
    root = _repo(tmp_path)
    source = b"# coding: cp1252\n" + PY.encode()
    (root / "tools/c.py").write_bytes(source)
    assert _fix(root, "tools/c.py") == 2
    assert "cp1252" in capsys.readouterr().err
    assert (root / "tools/c.py").read_bytes() == source


@pytest.mark.parametrize("cookie", [b"# -*- coding: utf-8 -*-\n", b"# vim: set fileencoding=utf-8 :\n", b""])
def test_python_in_utf8_with_or_without_a_cookie_or_bom_is_rewritten(tmp_path, capsys, cookie):
    root = _repo(tmp_path)
    for name, head in (("c.py", b""), ("bom.py", b"\xef\xbb\xbf")):
        (root / "tools" / name).write_bytes(head + cookie + PY.encode())
    assert _fix(root) == 0, capsys.readouterr().err
    for name in ("c.py", "bom.py"):
        after = (root / "tools" / name).read_bytes()
        assert after.startswith(b"\xef\xbb\xbf" if name == "bom.py" else cookie or b"import")
        assert b'"cases"' in after and _run_python(after, root) == "do it"


# --- hard links, symlinks, timing --------------------------------------------------------------


def test_a_hard_linked_consumer_inside_the_root_is_rewritten_under_every_name(tmp_path, capsys):
    """Every name of a hard-linked file inside the root is rewritten, as `migrate` does;
    the codemod refused it as `hard_link_outside_repo` with "no repo root to find them in"."""
    root = _repo(tmp_path)
    (root / "tools/c.py").write_text(PY)
    os.link(root / "tools/c.py", root / "tools/d.py")
    assert _fix(root, "tools/c.py") == 0, capsys.readouterr().err
    first, second = root / "tools/c.py", root / "tools/d.py"
    assert first.read_text() != PY and first.read_text() == second.read_text()
    assert os.path.samefile(first, second)


def test_a_consumer_hard_linked_outside_the_root_is_refused(tmp_path, capsys):
    root = _repo(tmp_path)
    outside = tmp_path / "outside.py"
    outside.write_text(PY)
    os.link(outside, root / "tools/c.py")
    assert _fix(root, "tools/c.py") == 2
    assert "[hard_link_outside_repo]" in capsys.readouterr().err
    assert outside.read_text() == PY


def test_a_consumer_edited_between_the_read_and_the_write_is_left_as_edited(tmp_path, capsys, monkeypatch):
    from fixture_migrate.consumers import run

    root = _repo(tmp_path)
    path = root / "tools/c.py"
    path.write_text(PY)
    real = run.fixed_text

    def edit_meanwhile(*args, **kwargs):
        result = real(*args, **kwargs)
        path.write_text(PY + "# edited\n")
        return result

    monkeypatch.setattr(run, "fixed_text", edit_meanwhile)
    assert _fix(root, "tools/c.py") == 2
    assert "[changed_meanwhile]" in capsys.readouterr().err
    assert path.read_text() == PY + "# edited\n"


def test_the_api_rewrites_every_name_of_a_hard_linked_consumer(tmp_path):
    root = _repo(tmp_path)
    (root / "tools/c.py").write_text(PY)
    os.link(root / "tools/c.py", root / "tools/d.py")
    found = fixture_migrate.find_consumers(root, repo_root=root, fix=True)
    assert {f.path for f in found} == {"tools/c.py"}  # d.py, rewritten with it, has no site left
    assert (root / "tools/c.py").read_text() == (root / "tools/d.py").read_text() != PY


# --- consumer code that names its fixture relative to itself -----------------------------------


@pytest.mark.parametrize(
    "spelled",
    [
        pytest.param(f'require("../{FIXTURE}")', id="js-parent"),
        pytest.param(f'require(path.join(__dirname, "../../{FIXTURE}"))', id="js-dirname"),
    ],
)
def test_a_script_naming_its_fixture_relative_to_itself_is_found(tmp_path, capsys, spelled):
    """`require("../skills/a/evals/examples.json")` from `tools/` is how Node code names a
    fixture; it named nothing, so `--fix` left the read that the migration breaks."""
    root = _repo(tmp_path)
    (root / "tools/sub").mkdir()
    where = "tools/c.js" if "__dirname" not in spelled else "tools/sub/c.js"
    (root / where).write_text(f'const path = require("path");\nconst data = {spelled};\nmodule.exports = data.examples;\n')
    assert main(["consumers", "--repo-root", str(root), str(root)]) == 1
    assert f"{where}:3:" in capsys.readouterr().out


# --- nesting: a crash, and time quadratic in the depth ----------------------------------------


def _deep_files(root: Path) -> None:
    depth = 20_000
    head = f'const d = require("{FIXTURE}");\n'
    (root / "tools/brackets.js").write_text(head + "const x = " + "(" * depth + "d.examples" + ")" * depth + ";\n")
    (root / "tools/sum.js").write_text(head + "const y = d.examples[0].name" + " + 1" * depth + ";\n")
    (root / "tools/deep.py").write_text(f'd = load("{FIXTURE}")\nx = ' + "[" * 5000 + 'd["examples"]' + "]" * 5000 + "\n")
    (root / "tools/c.py").write_text(PY)


def test_deeply_nested_code_is_not_read_and_the_run_goes_on(tmp_path):
    """libcst's native parser overflows its stack on a few thousand nested brackets: a 10 KB
    module killed the whole run (SIGSEGV, nothing reported). tree-sitter's `parent` walks
    from the root, so a script nesting 20,000 levels (parentheses, or a long `+` chain) took
    minutes. Both are now 'not read: too deep' (a note when walked), in bounded time."""
    from tests.runner import run_process

    root = _repo(tmp_path)
    _deep_files(root)
    done = run_process(["consumers", "--fix", "--repo-root", str(root), str(root)], root, timeout=60)
    assert done.code == 0, done
    for name in ("brackets.js", "sum.js", "deep.py"):
        assert f"tools/{name}: not read:" in done.err, done.err
    assert '"cases"' in (root / "tools/c.py").read_text()  # the other file is rewritten


def test_a_named_deeply_nested_module_is_an_error(tmp_path):
    from tests.runner import run_process

    root = _repo(tmp_path)
    _deep_files(root)
    done = run_process(["consumers", "--repo-root", str(root), str(root / "skills"), str(root / "tools/deep.py")], root, timeout=60)
    assert done.code == 2 and "tools/deep.py:2:205: error: invalid Python: too many nested parentheses" in done.err, done


# --- the pin scan ------------------------------------------------------------------------------


def test_the_pin_scan_reads_no_tracked_file_through_a_symlinked_folder(tmp_path, capsys):
    """`git ls-files` names `data/pins.txt`; with `data` now a symlink to a folder outside
    the root, the scan read the file out there (its digest then kept the fixture from
    migrating). Tracked files are read under the root rule, as every other file."""
    import hashlib
    import shutil
    import subprocess

    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = tmp_path / "repo"
    (root / "skills/a/evals").mkdir(parents=True)
    (root / FIXTURE).write_text(json.dumps(LEGACY, indent=2) + "\n")
    (root / "data").mkdir()
    (root / "data/pins.txt").write_text("nothing pinned\n")
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "x"], check=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    digest = hashlib.sha256((root / FIXTURE).read_bytes()).hexdigest()
    (outside / "pins.txt").write_text(f"{FIXTURE} {digest}\n")
    shutil.rmtree(root / "data")
    (root / "data").symlink_to(outside, target_is_directory=True)
    assert main(["migrate", "--repo-root", str(root), str(root / "skills")]) == 0
    assert "pinned by" not in capsys.readouterr().err
    assert json.loads((root / FIXTURE).read_text())["schema_version"] == "spec-first.workflow-eval-fixtures.v1"


def test_a_python_module_too_large_for_libcst_is_said_not_read(tmp_path, capsys):
    """Python code up to 4 MiB went to libcst, whose tree takes some 800 MiB per MiB of text
    (a 1 MB module: 40 s and 745 MB; 4 MiB, some 3 GB). Over the 512 KiB `migrate` reads
    with libcst, a module is 'not read: too large' and the run goes on."""
    root = _repo(tmp_path)
    filler = "".join(f"def f{i}(x):\n    return x['k{i}']\n\n\n" for i in range(20_000))
    big = PY + "\n\n" + filler
    assert len(big) > 512 << 10
    (root / "tools/big.py").write_text(big)
    (root / "tools/c.py").write_text(PY)
    assert _fix(root) == 0
    assert "tools/big.py: not read: a Python module over 512 KiB" in capsys.readouterr().err
    assert (root / "tools/big.py").read_text() == big
    assert '"cases"' in (root / "tools/c.py").read_text()


# --- many sites ----------------------------------------------------------------------------------


def _innermost_by_pairs(edits):
    """`findings.innermost` as it was written: every edit against every other."""
    kept = [
        edit
        for edit in edits
        if not any(o is not edit and edit.start <= o.start and o.end <= edit.end and o != edit for o in edits)
    ]
    result = []
    for edit in sorted(kept, key=lambda e: (e.start, e.end)):
        if result and edit.start < result[-1].end:
            continue
        result.append(edit)
    return result


def test_innermost_is_the_pairwise_rule():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from fixture_migrate.consumers.findings import Edit, innermost

    spans = st.tuples(st.integers(0, 30), st.integers(0, 8), st.sampled_from(["a", "b"])).map(
        lambda t: Edit(t[0], t[0] + t[1], t[2])
    )

    @settings(max_examples=300, deadline=None)
    @given(st.lists(spans, max_size=12))
    def check(edits):
        assert innermost(edits) == _innermost_by_pairs(edits)

    check()


def test_many_sites_are_rewritten_in_time_linear_in_their_number():
    """`innermost` compared every edit with every other: 40,000 reads in a 1.3 MB script
    (one per function) took over two minutes of --fix, most of it there."""
    import time

    from fixture_migrate.consumers.findings import Edit, innermost

    edits = [Edit(i * 100 + 10, i * 100 + 20, "x") for i in range(40_000)]
    edits += [Edit(i * 100, i * 100 + 30, "y") for i in range(40_000)]
    started = time.perf_counter()
    kept = innermost(edits)
    assert time.perf_counter() - started < 5
    assert [(e.start, e.end) for e in kept[:2]] == [(10, 20), (110, 120)] and len(kept) == 40_000


def test_a_rewrite_that_would_grow_past_the_size_limit_is_said_so_not_called_a_bug(tmp_path, capsys):
    """A module under 512 KiB whose rewrite grows past it was reported as 'internal error:
    the rewritten code does not parse ... please report this as a bug'."""
    root = _repo(tmp_path)
    head = 'import json\nDATA = json.load(open("skills/a/evals/examples.json"))\n\n\n'
    source = head + "".join(f'def f{i}():\n    return DATA["examples"][0]["user_intent"]\n\n\n' for i in range(7_000))
    assert len(source) < 512 << 10 < 2 * len(source)
    (root / "tools/c.py").write_text(source)
    assert _fix(root, "tools/c.py") == 2
    err = capsys.readouterr().err
    assert "internal" not in err and "report this as a bug" not in err, err
    assert "[too_large]" in err and "its rewrite would be" in err, err
    assert (root / "tools/c.py").read_text() == source
