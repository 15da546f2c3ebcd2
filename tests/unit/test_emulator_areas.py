"""The emulator's areas registry (workspace_emulator/platform/areas): each listed area
loads, an extra area opens with the others and is reached as workspace.<name>, and opening
refuses an order that would lose permission objects."""

from __future__ import annotations

from pathlib import Path

import pytest

from workspace_emulator.identity import IdentityProvider
from workspace_emulator.platform.area import Area, WorkspaceSettings
from workspace_emulator.platform.areas import AREAS, registered_areas
from workspace_emulator.platform.opening import open_workspace
from workspace_emulator.storage import Database

SETTINGS = WorkspaceSettings(workspace_id=1, metastore_id="m", base_url="http://x",
                             transition_seconds=0)


class Widgets:
    def exists(self, widget_id: str) -> bool:
        return widget_id == "w1"


WIDGETS = Area(name="widgets", open=lambda context: Widgets(),
               tables="CREATE TABLE IF NOT EXISTS widgets (id TEXT PRIMARY KEY);",
               permission_objects={"widgets": Widgets.exists})


def _open(areas):
    db = Database(None)
    return db, open_workspace(db, IdentityProvider(db, "t", ("r",), 60), SETTINGS, areas)


def test_every_listed_area_loads_under_its_name_in_a_domain_of_the_providers():
    assert [area.name for area in registered_areas()] == [p.split(".")[1] for p in AREAS]
    providers = Path(__file__).resolve().parents[2] / "providers"
    assert {path.split(".")[0] for path in AREAS} <= {
        d.name for d in providers.iterdir() if (d / "__init__.py").is_file()
    }


def test_an_extra_area_opens_with_its_table_and_serves_its_permission_objects():
    areas = list(registered_areas())
    areas.insert(0, WIDGETS)
    db, workspace = _open(areas)
    assert isinstance(workspace.widgets, Widgets)
    with db.read() as conn:
        assert conn.execute("SELECT count(*) FROM widgets").fetchone()[0] == 0
    assert workspace.object_permissions._stores["widgets"]("w1")


def test_an_area_with_permission_objects_after_object_permissions_is_refused():
    with pytest.raises(ValueError, match="'widgets' holds objects with permissions"):
        _open([*registered_areas(), WIDGETS])
