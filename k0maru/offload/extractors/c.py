"""C failures in build and test logs."""

from __future__ import annotations

import re

from k0maru.offload.extractors.base import Extractor, register, short, user_path
from k0maru.offload.findings import Failure


def _runtime_path(path: str) -> bool:
    return not user_path(path)


@register
class CExtractor(Extractor):
    stack = "c"
    triggers = ("error", "Sanitizer", "undefined reference")
    DIAG = re.compile(
        r"^(\S+?\.(?:c|cc|cpp|cxx|c\+\+|h|hh|hpp|m|mm)):(\d+):(\d+): (?:fatal )?error: (.*)"
    )
    UBSAN = re.compile(r"^(\S+?\.(?:c|cc|cpp|cxx|h|hpp)):(\d+):(\d+): runtime error: (.*)")
    SAN = re.compile(r"^==\d+==ERROR: (\w+Sanitizer): ([\w-]+)(.*)")
    SAN_FRAME = re.compile(r"^\s+#\d+ 0x[0-9a-fA-F]+ in (\S+) (\S+?):(\d+)(?::(\d+))?")
    FLAG = re.compile(r"\[(-W[\w=+-]+)\]")

    def feed(self, line: str, lineno: int) -> None:
        if self.pending is not None:
            m = self.SAN_FRAME.match(line)
            if m and not _runtime_path(m.group(2)):
                self.locate(f"{m.group(2)}:{m.group(3)}" + (f":{m.group(4)}" if m.group(4) else ""))
            else:
                self.tick()
            return
        if line.startswith("=="):
            m = self.SAN.match(line)
            if m:
                message = short(f"{m.group(1)}: {m.group(2)}{m.group(3)}")
                self.expect_location(Failure(self.stack, m.group(2), message, lineno), 30)
            return
        if "error: " in line or "runtime error" in line:
            m = self.DIAG.match(line)
            if m:
                flag = self.FLAG.search(m.group(4))
                self.f.add(
                    Failure(
                        self.stack,
                        flag.group(1) if flag else "error",
                        short(m.group(4)),
                        lineno,
                        f"{m.group(1)}:{m.group(2)}:{m.group(3)}",
                    )
                )
                return
            m = self.UBSAN.match(line)
            if m:
                # the check's name as UBSan prints it ("signed integer overflow"), else uncoded
                kind = m.group(4).split(":", 1)[0].strip()
                code = kind if ":" in m.group(4) and len(kind.split()) <= 5 else "error"
                said = m.group(4).split(":", 1)[1] if code == kind else m.group(4)
                self.f.add(
                    Failure(
                        self.stack,
                        code,
                        short(said),
                        lineno,
                        f"{m.group(1)}:{m.group(2)}:{m.group(3)}",
                    )
                )
        elif "undefined reference to" in line:
            self.f.add(Failure(self.stack, "undefined reference", short(line), lineno))
