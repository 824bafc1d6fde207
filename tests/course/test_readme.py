"""The README's two commands are the ones CI runs and the runner offers."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _commands():
    return re.findall(r"```bash\n(.*?)\n```", (ROOT / "README.md").read_text(), flags=re.S)


def test_readme_has_exactly_two_commands_and_ci_runs_the_second():
    commands = _commands()
    assert len(commands) == 2, commands
    install_run, install_test = commands
    assert "pip install -r requirements.txt" in install_run and "-m word2bert run" in install_run
    assert install_test.endswith(".venv/bin/python -m word2bert test")  # both passes, see course/testing.py
    ci_lines = [line for line in (ROOT / ".ci" / "run").read_text().splitlines() if line and not line.startswith("#")]
    assert install_test in ci_lines


def test_requirements_pin_the_verified_set_and_install_the_library():
    lines = [l.strip() for l in (ROOT / "requirements.txt").read_text().splitlines() if l.strip() and not l.startswith("#")]
    pins = dict(l.split("==") for l in lines if "==" in l)
    assert pins["tensorflow"] == "2.21.0" and pins["tensorflow-text"] == "2.21.1" and pins["keras"] == "3.15.1"
    assert "-e ." in lines
    assert all("==" in l for l in lines if l != "-e .")
