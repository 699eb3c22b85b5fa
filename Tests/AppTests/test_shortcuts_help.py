"""The Keyboard Shortcuts help (Ctrl+?) as users see it: generated from the keys the pages
handle, it names every key of a line, Backspace among those that remove a photo from the album
(the help written by hand had lost it)."""
from __future__ import annotations

from harness import name_of, role_name, safe, walk
from album_steps import press_key


def is_key_cap(node) -> bool:
    """A label with text and no label inside: libadwaita 1.10's shortcut label is a label of its
    own, named after all its keys ("Left Right Up Down"), around one label per key cap."""
    return (role_name(node) == "label" and bool(name_of(node))
            and not any(role_name(inner) == "label" for inner in walk(node) if inner is not node))


def keys_of_line(app, title: str) -> list[str]:
    """The key caps the help shows beside the line `title`: the labels of the smallest part of the
    help around the title that holds more than it (GTK's and libadwaita's rows alike)."""
    node = app.wait_find(role="label", name=title, timeout=10)
    for _ in range(6):
        node = safe(node.get_parent, None)
        assert node is not None, f"no keys around {title!r}"
        labels = [name_of(n) for n in walk(node) if is_key_cap(n)]
        keys = [name for name in labels if title not in name and name not in ("/", "+")]
        if keys:
            return keys
    raise AssertionError(f"no keys around {title!r}")


def test_help_lists_backspace_for_removing_a_photo(launch, dirs, paris):
    app = launch()
    app.wait_find(role="toggle button", name="Edit", showing=True, timeout=10)
    press_key(app, "ctrl+question")
    keys = [key.lower() for key in keys_of_line(app, "Remove the selected photo")]
    assert "delete" in keys and "backspace" in keys, f"the help's keys for removing a photo: {keys}"
    # The line for the arrows the grid moves through photos with, which the help lacked as well.
    assert len(keys_of_line(app, "Move between the photos")) == 4
