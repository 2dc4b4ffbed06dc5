"""How a signed-in user set up the code editor, so it looks the same in every browser they use."""

from django.conf import settings
from django.db import models

FONT_SIZES = (12, 13, 14, 15, 16, 18, 20)
DEFAULT_FONT_SIZE = 14


class Keymap(models.TextChoices):
    DEFAULT = "default", "Default"
    VIM = "vim", "Vim"
    EMACS = "emacs", "Emacs"


class EditorSettings(models.Model):
    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="editor_settings")
    font_size = models.PositiveSmallIntegerField(default=DEFAULT_FONT_SIZE,
                                                 choices=[(px, f"{px} px") for px in FONT_SIZES])
    wrap = models.BooleanField(default=False, help_text="Wrap long lines instead of scrolling sideways.")
    keymap = models.CharField(max_length=10, choices=Keymap.choices, default=Keymap.DEFAULT)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "editor settings"

    def __str__(self) -> str:
        return f"{self.user}: {self.font_size} px, wrap {'on' if self.wrap else 'off'}, {self.keymap} keys"

    def as_json(self) -> dict:
        """The form the page and the API use."""
        return {"font_size": self.font_size, "wrap": self.wrap, "keymap": self.keymap}
