"""Command line: ``python -m word2bert run|smoke|table|test|site``."""
from __future__ import annotations

import argparse
import sys


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m word2bert", description="Run the word2bert course.")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="execute chapters in order and print a results table")
    run.add_argument("chapters", nargs="*", help="chapter numbers or names (default: all)")
    run.add_argument("--profile", choices=["ci", "cpu", "gpu"], default=None,
                     help="size profile (default: $W2B_PROFILE, else gpu if a GPU is visible, else cpu)")
    run.add_argument("--chapters-dir", default="chapters")
    run.add_argument("--runs-dir", default="runs")
    run.add_argument("--fresh", action="store_true",
                     help="run every chapter, even those an interrupted run of the same chapters already finished")
    run.add_argument("--inplace", action="store_true",
                     help="also write the executed notebooks back into the chapters folder (for authors)")
    smoke = sub.add_parser("smoke", help="run chapters with the gpu profile's shapes and the ci profile's amounts "
                                         "on this machine (W2B_SMOKE=1), in a scratch folder; chapter 09 also on "
                                         "JAX with two simulated devices")
    smoke.add_argument("chapters", nargs="*", help="chapter numbers or names (default: all)")
    smoke.add_argument("--root", default=None, help="scratch folder (default: a new temporary folder)")
    smoke.add_argument("--chapters-dir", default="chapters")
    table = sub.add_parser("table", help="print the results table of the committed chapters")
    table.add_argument("--chapters-dir", default="chapters")
    test = sub.add_parser("test", help="run the tests as CI does: TensorFlow pass (unit tests + chapters at the ci "
                                       "profile) and JAX pass at the same time")
    mode = test.add_mutually_exclusive_group()
    mode.add_argument("--one-after-the-other", action="store_true", help="run the two passes in turn")
    mode.add_argument("--fast", action="store_true", help='the developer loop: pytest tests -m "not slow" -n 2')
    site = sub.add_parser("site", help="build the course's website into _build/site/ (offline, from the committed "
                                       "chapters and the library's docstrings; makes .venv-site on first use)")
    site.add_argument("--venv", default=".venv-site", help="the site's virtual environment (default: .venv-site)")
    site.add_argument("--no-strict", action="store_true", help="do not treat Sphinx warnings as errors")
    args = parser.parse_args(argv)

    if args.command == "site":
        from word2bert.course.site import SiteError, build_site

        try:
            build_site(".", venv=args.venv, strict=not args.no_strict)
        except (SiteError, FileNotFoundError) as err:
            print(f"word2bert: {err}", file=sys.stderr)
            return 1
        return 0

    if args.command == "test":
        from word2bert.course.testing import run_tests

        return run_tests("fast" if args.fast else "one-after-the-other" if args.one_after_the_other else "together")

    from word2bert.course import runner

    try:
        if args.command == "smoke":
            runner.run_smoke(args.chapters, args.root, args.chapters_dir)
        elif args.command == "run":
            runner.run_course(args.profile, args.chapters, args.chapters_dir, args.runs_dir, args.inplace,
                              fresh=args.fresh)
        else:
            print(runner.committed_table(args.chapters_dir))
    except (runner.ChapterError, ValueError, FileNotFoundError) as err:
        print(f"word2bert: {err}", file=sys.stderr)
        return 1
    except ImportError as err:
        print(f"word2bert: running the course needs the notebook tools ({err.name} is missing): "
              "pip install -r requirements.txt, or pip install 'word2bert[course]'", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
