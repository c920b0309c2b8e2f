"""The command line, driven as a subprocess the way a user runs it."""

import subprocess
import sys


def run(*args):
    return subprocess.run([sys.executable, "-m", "geoiou.cli", *args], capture_output=True, text=True, timeout=120)


def test_demo_prints_the_worked_examples_and_succeeds():
    result = run("demo")
    assert result.returncode == 0, result.stderr
    assert "image_0002 detection" in result.stdout and "0.7980" in result.stdout
    assert "macro IoU of label sets" in result.stdout
    assert "DOTA P0706 (harbour): 536 quadrilaterals" in result.stdout
    assert "21 of 21 worked examples match" in result.stdout
    assert " NO" not in result.stdout


def test_help_lists_the_demo():
    result = run("--help")
    assert result.returncode == 0 and "demo" in result.stdout


def test_no_command_prints_help_and_fails():
    result = run()
    assert result.returncode == 2 and "usage: geoiou" in result.stdout
