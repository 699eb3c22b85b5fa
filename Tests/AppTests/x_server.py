"""The private X server of the app tests: Xvfb on a display number it picks itself (-displayfd),
1280x800x24; keys and text typed with xdotool (each key by its keycode), screenshots with
ImageMagick's import; and `end_process` for the helpers a test or a benchmark starts."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from harness_core import HarnessError

SCREEN = (1280, 800)


class XServer:
    def __init__(self, workdir: Path) -> None:
        for tool in ("Xvfb", "xprop", "xdotool", "xmodmap", "import"):
            if not shutil.which(tool):
                raise HarnessError(f"{tool} is missing (./meson-helpers/dev test installs it)")
        read_fd, write_fd = os.pipe()
        self.log = open(workdir / "xvfb.log", "wb")
        # -displayfd: Xvfb picks a free display number itself and reports it once it accepts
        # clients, so parallel runs never collide. -noreset: the server must survive the last
        # client disconnecting between tests.
        self.proc = subprocess.Popen(
            ["Xvfb", "-displayfd", str(write_fd), "-noreset", "-nolisten", "tcp",
             "-screen", "0", f"{SCREEN[0]}x{SCREEN[1]}x24"],
            pass_fds=(write_fd,), stdout=self.log, stderr=subprocess.STDOUT)
        os.close(write_fd)
        number = b""
        with os.fdopen(read_fd, "rb") as pipe:
            while not number.endswith(b"\n"):
                chunk = pipe.read(1)
                if not chunk:
                    break
                number += chunk
        if not number.strip():
            self.proc.kill()
            raise HarnessError(f"Xvfb did not start; see {workdir / 'xvfb.log'}")
        self.display = f":{int(number)}"
        self.bound: set[str] = set()   # keysym names type_text gave a spare keycode
        self.first_level: dict[str, str] | None = None   # keysym -> keycode, see _by_keycode
        # A stale AT_SPI_BUS property would win over the session bus and split app and test.
        subprocess.run(["xprop", "-display", self.display, "-root", "-remove", "AT_SPI_BUS"], check=True)

    def env(self) -> dict[str, str]:
        return {"DISPLAY": self.display}

    def run(self, *args: str, check: bool = True) -> str:
        result = subprocess.run(list(args), env={**os.environ, "DISPLAY": self.display},
                                capture_output=True, text=True, timeout=30)
        if check and result.returncode != 0:
            raise AssertionError(f"{' '.join(args)} failed: {result.stderr.strip()}")
        return result.stdout

    def xdotool(self, *args: str) -> str:
        if args and args[0] in ("key", "keydown", "keyup"):
            args = (args[0], *self._by_keycode(args[1:]))
        return self.run("xdotool", *args)

    # xdotool options of key/keydown/keyup that take a value, and the commands that can follow.
    _KEY_OPTIONS = {"--window", "--delay", "--repeat", "--repeat-delay"}
    _COMMANDS = {"key", "keydown", "keyup", "type", "click", "mousedown", "mouseup", "mousemove",
                 "mousemove_relative", "sleep", "windowfocus", "windowactivate", "search"}

    def _by_keycode(self, args: tuple[str, ...]) -> list[str]:
        """Each key of a combo given by the keycode whose unshifted keysym it is. Where a keysym
        sits on several levels of one key (xkeyboard-config 2.45+ gives F2 seven, the last being
        XF86Switch_VT_2), xdotool may choose one that needs a modifier and send F2 as Alt+F2;
        a keycode is pressed with exactly the modifiers the combo names."""
        if self.first_level is None:
            self.first_level = {}
            for code, first in re.findall(r"^keycode\s+(\d+) = (\S+)", self.run("xmodmap", "-pke"), re.M):
                # Below 10 a number is also a digit's keysym name: xdotool would read it so.
                if int(code) >= 10:
                    self.first_level.setdefault(first, code)
        out, value_next = [], False
        for index, arg in enumerate(args):
            if not value_next and arg in self._COMMANDS:
                return out + list(args[index:])   # a chained command: its arguments are not keys
            if value_next or arg.startswith("--"):
                value_next = not value_next and arg in self._KEY_OPTIONS
                out.append(arg)
            else:
                out.append("+".join(self.first_level.get(part, part) for part in arg.split("+")))
        return out

    def type_text(self, text: str, delay_ms: int = 20) -> None:
        """Types `text` on the keyboard. `xdotool type` gives a character the keymap lacks a
        spare keycode for one press and takes it back at once; GTK reads the keymap only when it
        gets to the press, so on a busy machine it reads it taken back and drops the character.
        Such characters get a keycode of their own for good and are pressed by keysym."""
        for run in re.findall(r"[\x20-\x7e]+|[^\x20-\x7e]", text):
            if run.isascii():
                self.xdotool("type", "--delay", str(delay_ms), "--", run)
            else:
                self.xdotool("key", "--delay", str(delay_ms), self._bound_keysym(run))

    def _bound_keysym(self, char: str) -> str:
        name = f"U{ord(char):04X}"   # XStringToKeysym's name for any Unicode character
        if name not in self.bound:
            spare = [int(m) for m in re.findall(r"^keycode\s+(\d+) =\s*$", self.run("xmodmap", "-pke"), re.M)]
            if not spare:
                raise HarnessError(f"no spare keycode left for {char!r}")
            self.run("xmodmap", "-e", f"keycode {spare[-1]} = {name}")
            self.bound.add(name)
        return name

    def screenshot(self, path: Path) -> Path:
        self.run("import", "-window", "root", str(path))
        return path

    def stop(self) -> None:
        end_process(self.proc)
        self.log.close()


def end_process(proc: subprocess.Popen, timeout: float = 10.0) -> None:
    """SIGTERM, then SIGKILL for a helper (a display server, a benchmarked app) still running
    after `timeout`."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
