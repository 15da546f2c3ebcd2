"""A kind is declared once and registered in one place: a throwaway API domain outside the
`providers` package (a package written to a temporary folder on `sys.path`), whose kind is
registered by this test, is found by the flat surface, the provider host, the stack's config
rules, the audit, adoption, the drills (their judge and the after-write drill's update) and
the docs tables, with nothing else written for it."""

from __future__ import annotations

import importlib
import sys
import textwrap
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, cast

import pytest

import providers
from providers.client import WorkspaceClient
from providers.core.host import kind_of
from providers.core.kind import Kind, provider_in
from providers.core.registry import by_config_key, kinds, register, unregister
from stacks import adoption, audit
from stacks.config_rules import problems
from tools import kinds_table
from tools.drills import after_write, inventory

REPO_ROOT = Path(__file__).resolve().parents[2]
WIDGET_URN = "urn:pulumi:dev::workspace::pulumi-python:dynamic/workspace:Widget::w"
DOMAIN = "throwaway_gadgets"

# The throwaway domain: a package of two kinds, each module ending with its declaration as a
# kind of `providers/<domain>/` does. Sprocket declares no drill change.
DOMAIN_MODULES = {
    "__init__.py": '''
        """A throwaway API domain: gadgets."""
    ''',
    "widget.py": '''
        from __future__ import annotations

        from typing import Any

        from pydantic import BaseModel, ConfigDict, Field

        from providers.core.kind import DrillChange, Reference, declare
        from providers.core.lifecycle import WorkspaceProvider


        class GearModel(BaseModel):
            model_config = ConfigDict(extra="forbid")
            teeth: int = Field(ge=3)


        class WidgetModel(BaseModel):
            model_config = ConfigDict(extra="forbid")
            name: str
            job_id: int | None = None
            gear: GearModel | None = None


        class WidgetProvider(WorkspaceProvider):
            args_model = WidgetModel

            @classmethod
            def rules(cls, inputs: Any) -> list[tuple[str, str]]:
                if inputs.get("name") == "forbidden":
                    return [("name", "must not be 'forbidden'")]
                return []

            def read_object(self, client: Any, id_: str, recorded: Any) -> Any:
                """The one widget the workspace holds: `w-1`, five teeth."""
                if id_ != "w-1":
                    return None
                return {"name": "first widget", "gear": {"teeth": 5}}, {"serial": "s-1"}


        def _drill_change(widget: dict[str, Any]) -> dict[str, Any]:
            """One more tooth (a gear of three where it has none)."""
            teeth = (widget.get("gear") or {}).get("teeth", 2)
            return {**widget, "gear": {"teeth": teeth + 1}}


        KIND = declare(
            name="Widget",
            provider=WidgetProvider,
            outputs={"serial": str},
            config_key="widgets",
            identity=("name",),
            references={"job": Reference(target_key="jobs", field="job_id")},
            doc="docs/widget.md",
            summary="a widget",
            import_id="widget name",
            inventory=lambda client: [("w-1", "first widget")],
            drill=DrillChange(_drill_change),
        )
    ''',
    "sprocket.py": '''
        from pydantic import BaseModel, ConfigDict

        from providers.core.kind import declare
        from providers.core.lifecycle import WorkspaceProvider


        class SprocketModel(BaseModel):
            model_config = ConfigDict(extra="forbid")
            name: str


        class SprocketProvider(WorkspaceProvider):
            args_model = SprocketModel


        KIND = declare(
            name="Sprocket",
            provider=SprocketProvider,
            config_key="sprockets",
            doc="docs/sprocket.md",
            summary="a sprocket",
        )
    ''',
}


@pytest.fixture(scope="module")
def domain(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The throwaway domain's package name, importable while this module's tests run."""
    root = tmp_path_factory.mktemp("domain")
    (root / DOMAIN).mkdir()
    for name, source in DOMAIN_MODULES.items():
        (root / DOMAIN / name).write_text(textwrap.dedent(source).lstrip())
    sys.path.insert(0, str(root))
    yield DOMAIN
    sys.path.remove(str(root))
    for module in [m for m in sys.modules if m == DOMAIN or m.startswith(f"{DOMAIN}.")]:
        del sys.modules[module]


def registered(module: str) -> Iterator[Kind]:
    kind = importlib.import_module(module).KIND
    register(kind)
    yield kind
    unregister(kind)


@pytest.fixture()
def widget(domain: str) -> Iterator[Kind]:
    yield from registered(f"{domain}.widget")


@pytest.fixture()
def sprocket(domain: str) -> Iterator[Kind]:
    yield from registered(f"{domain}.sprocket")


def test_every_registered_kind_has_one_declaration_and_a_doc_page() -> None:
    names = [kind.name for kind in kinds()]
    assert len(names) == len(set(names))
    keys = [kind.config_key for kind in kinds() if kind.config_key]
    assert len(keys) == len(set(keys))
    for kind in kinds():
        assert (REPO_ROOT / kind.doc).is_file(), kind.doc
        assert kind.summary and kind.args.__name__ == f"{kind.name}Args"
        assert kind.provider.computed_keys == set(kind.outputs) | set(kind.stamped)


def test_the_docs_tables_are_the_registrys() -> None:
    assert kinds_table.stale() == []


def test_the_flat_surface_has_every_kind_and_its_args(widget: Kind) -> None:
    for kind in kinds():
        assert getattr(providers, kind.name) is kind.resource
        assert getattr(providers, f"{kind.name}Args") is kind.args
        assert {kind.name, f"{kind.name}Args"} <= set(providers.__all__)
    # A kind registered at run time is beyond the generated stub.
    assert providers.GearArgs is widget.arg_types["GearArgs"]  # type: ignore[attr-defined]


def test_generated_args_follow_the_model(widget: Kind) -> None:
    args = widget.args(name="w", gear=widget.arg_types["GearArgs"](teeth=5))
    assert args.name == "w" and args.job_id is None and args.gear.teeth == 5
    with pytest.raises(TypeError, match="unexpected keyword argument 'nme'"):
        widget.args(nme="w")  # an unknown argument is refused by name
    assert widget.resource.__name__ == "Widget"
    assert widget.type_token == "pulumi-python:dynamic/workspace:Widget"


def test_the_provider_host_serves_it(widget: Kind) -> None:
    assert kind_of(WIDGET_URN) is widget
    assert widget.implementation == f"{DOMAIN}.widget"
    # What a program's request names the provider by, turned back into the provider.
    assert type(provider_in(widget.implementation, "Widget")) is widget.provider


def test_the_stack_config_knows_its_list(widget: Kind) -> None:
    assert by_config_key()["widgets"] is widget
    values = {
        "widgets": [
            {"name": "a", "gear": {"teeth": 2}},
            {"name": "a", "job": "nightly"},
            {"name": "forbidden"},
        ],
        "widgetz": [],
    }
    found = problems(values)
    assert "workspace:widgetz: unknown key (did you mean 'widgets'?)" in found
    assert "workspace:widgets[0].gear.teeth: Input should be greater than or equal to 3" in found
    assert "workspace:widgets[1].name: 'a' is declared twice (first at widgets[0])" in found
    assert any(p.startswith("workspace:widgets[1].job: no job named 'nightly'") for p in found)
    assert "workspace:widgets[2].name: must not be 'forbidden'" in found


@pytest.mark.usefixtures("fake_areas")  # _NoCalls stands for every area
def test_the_audit_lists_its_objects(widget: Kind) -> None:
    assert audit.audited_kinds()["widget"] is widget
    listed = list(audit.workspace_objects(cast(WorkspaceClient, _NoCalls())))
    assert audit.WorkspaceObject("widget", "w-1", "first widget") in listed


def test_adoption_takes_it_over(widget: Kind) -> None:
    assert widget in adoption.adoptable_kinds()
    client = cast(WorkspaceClient, _NoCalls())
    [candidate] = adoption.candidates(client, widget)
    assert (candidate.import_id, candidate.display_name) == ("w-1", "first widget")
    assert candidate.item == {"name": "first widget", "gear": {"teeth": 5}}
    assert candidate.problem is None


def test_the_drills_judge_it_by_its_identity(widget: Kind) -> None:
    assert widget in inventory.judged_by_identity()
    empty = inventory.Inventory([], [], [], {}, {}, {}, objects={"Widget": []})
    made = inventory.Inventory(
        [], [], [], {}, {}, {}, objects={"Widget": [("w-1", "a"), ("w-2", "stray")]}
    )
    verdict = inventory.judge(empty, made, {"widgets": [{"name": "a"}, {"name": "b"}]}, "")
    assert verdict.problems == ["widget b exists 0 times", "widget stray is not declared"]


def test_the_after_write_drill_updates_it_as_it_declares(widget: Kind) -> None:
    assert after_write.drill_changes()["widgets"] is widget.drill
    assert after_write.drilled_kinds(["widgets", "jobRuns"]) == ("widgets",)
    declared = {"widgets": [{"name": "a", "gear": {"teeth": 3}}, {"name": "b"}]}
    assert after_write.updated(declared) == {
        "widgets": [{"name": "a", "gear": {"teeth": 4}}, {"name": "b", "gear": {"teeth": 3}}]
    }
    assert declared["widgets"][0] == {"name": "a", "gear": {"teeth": 3}}  # a copy changed
    assert after_write.without_drill_change() == []


def test_a_kind_without_a_drill_change_is_named_with_where_to_add_it(
    widget: Kind, sprocket: Kind
) -> None:
    assert after_write.without_drill_change() == [
        "Sprocket: no drill change: add drill=DrillChange(<item -> the item changed>) to the "
        f"KIND = declare(...) of {DOMAIN}.sprocket (action=... if it makes no object)"
    ]
    assert "sprockets" not in after_write.drilled_kinds(["widgets", "sprockets"])


def test_the_docs_tables_name_it(widget: Kind) -> None:
    stale = kinds_table.stale()
    assert stale == ["docs/README.md", "docs/configuration.md", "docs/audit.md"]
    table = kinds_table.reference_table(kinds())
    assert "| `Widget` | [widget.md](widget.md) | a widget | widget name |" in table
    assert "| `widgets` | `Widget` |" in kinds_table.config_table(kinds())
    assert "| `widget` | `Widget` | [widget.md](widget.md) |" in kinds_table.audit_table(kinds())


class _NoCalls:
    """A client whose every area's list call returns nothing, for the inventories of the
    real kinds (the only calls the audit makes: it stands in for a WorkspaceClient)."""

    def __getattr__(self, area: str) -> _NoCalls:
        return self

    def __call__(self, *args: Any, **kwargs: Any) -> _NoCalls:
        """An area found by an argument (`client.permissions("clusters")`)."""
        return self

    def list(self, *args: Any, **kwargs: Any) -> Sequence[Any]:
        return []

    def get(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        """A whole-workspace object (its settings): nothing set."""
        return {}

    def me(self) -> dict[str, Any]:
        """SCIM Me, which adoption's listing asks: no one."""
        return {}


def test_the_inputs_a_kind_holds_to_a_value_are_its_models_defaults() -> None:
    """`Kind.defaults` lets the provider host find a no-op diff without the model: each must
    be the model's default, or a declaration left out would be held to another value."""
    with_defaults = [kind for kind in kinds() if kind.defaults]
    assert with_defaults
    for kind in with_defaults:
        fields = kind.provider.args_model.model_fields
        for key, value in kind.defaults.items():
            assert fields[key].default == value, (kind.name, key)
