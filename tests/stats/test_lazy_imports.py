"""hcrbench.stats loads its names on first use: `hcrbench evaluate` of one run never imports scipy.stats (a
second of start-up and ~65 MB), and every public name still resolves, from the package or its modules."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def _run(code: str) -> str:
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_evaluating_one_run_through_the_cli_never_imports_scipy_stats(tmp_path):
    (tmp_path / "q.txt").write_text("q1 0 d1 1\nq1 0 d2 0\n")
    (tmp_path / "r.trec").write_text("q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0 t\n")
    out = _run(f"""
        import sys
        from hcrbench.cli import main
        sys.argv = ["hcrbench", "evaluate", {str(tmp_path / "q.txt")!r}, {str(tmp_path / "r.trec")!r},
                    "-m", "nDCG@10,AP", "--json", {str(tmp_path / "o.json")!r}]
        try:
            main()
        except SystemExit as e:
            assert not e.code, e.code
        print("scipy.stats" in sys.modules)
    """)
    assert out.strip().splitlines()[-1] == "False"
    assert '"AP"' in (tmp_path / "o.json").read_text()


def test_every_public_name_resolves_lazily():
    out = _run("""
        import sys
        import hcrbench.stats as S
        assert "scipy.stats" not in sys.modules
        for name in S.__all__:
            assert getattr(S, name) is not None, name
        assert set(S.__all__) <= set(dir(S))
        assert S.power.required_n is S.required_n  # a submodule as an attribute
        from hcrbench.stats import paired_ttest, tost
        assert 0 < paired_ttest([0.1, 0.2, 0.4], [0.0, 0.1, 0.1]).pvalue < 1  # scipy loaded where needed
        try:
            S.no_such_name
        except AttributeError as e:
            print("AttributeError", e)
    """)
    assert "AttributeError" in out and "no_such_name" in out
