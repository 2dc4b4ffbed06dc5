"""Saving a signed-in user's editor settings, checked field by field so a bad value saves nothing."""

from interview.models import EditorSettings, Keymap
from interview.models.editor_settings import FONT_SIZES
from interview.services.submissions import RefusalReason, Refused

FIELDS = ("font_size", "wrap", "keymap")


def editor_settings_save(*, user, changes: dict) -> EditorSettings:
    """Apply {"font_size"?, "wrap"?, "keymap"?}; a field left out keeps its saved value."""
    unknown = sorted(set(changes) - set(FIELDS))
    if unknown:
        raise _invalid(f"unknown setting {unknown[0]!r}: the settings are {', '.join(FIELDS)}")
    font_size = changes.get("font_size")
    # bool is an int in Python; True is no font size.
    if "font_size" in changes and (isinstance(font_size, bool) or font_size not in FONT_SIZES):
        raise _invalid(f"font_size must be one of {', '.join(map(str, FONT_SIZES))} (pixels), not {font_size!r}")
    if "wrap" in changes and not isinstance(changes["wrap"], bool):
        raise _invalid(f"wrap must be true or false, not {changes['wrap']!r}")
    keymap = changes.get("keymap")
    if "keymap" in changes and (not isinstance(keymap, str) or keymap not in Keymap.values):
        raise _invalid(f"keymap must be one of {', '.join(Keymap.values)}, not {keymap!r}")
    saved, _ = EditorSettings.objects.get_or_create(user=user)
    for field in FIELDS:
        if field in changes:
            setattr(saved, field, changes[field])
    saved.save()
    return saved


def _invalid(message: str) -> Refused:
    return Refused(message, reason=RefusalReason.INVALID)
