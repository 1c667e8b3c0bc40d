"""The loss report of an export: what the target format cannot hold, per case and field.

Nothing is dropped silently: every canonical value that the target has no place for
(or holds only as inert metadata, or only as text) is one `Loss`. The report is
printed on stderr, returned as `losses` by `--output-format json`, and `--strict`
makes any loss an error.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class Loss:
    """One value the target cannot hold as the canonical file does.

    `file` is the canonical file (as shown), `case` the case id (None for a file-level
    member), `field` the canonical member (`expected_outcome`, `extensions.x`, ...),
    `kind` one of `DROPPED`, `METADATA`, `TEXT`, `where` the target member that holds
    it (None when dropped) and `reason` one line for a person.
    """

    file: str
    case: str | None
    field: str
    kind: str
    where: str | None
    reason: str

    def text(self) -> str:
        place = f"case {self.case}" if self.case is not None else "file"
        held = f" -> {self.where}" if self.where else ""
        return f"{self.file}: {place}: {self.field} {self.kind}{held}: {self.reason}"


@dataclass
class LossReport:
    """The losses of one export, in case order."""

    target: str
    losses: list[Loss] = field(default_factory=list)

    def add(self, file: str, case: str | None, field_name: str, kind: str, where: str | None, reason: str) -> None:
        self.losses.append(Loss(file, case, field_name, kind, where, reason))

    def __bool__(self) -> bool:
        return bool(self.losses)

    def __len__(self) -> int:
        return len(self.losses)

    def as_json(self) -> list[dict[str, Any]]:
        return [asdict(loss) for loss in self.losses]

    def lines(self) -> list[str]:
        return [f"loss ({self.target}): {loss.text()}" for loss in self.losses]
