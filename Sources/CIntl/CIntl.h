// gettext from the C library. Swift's Glibc module does not export <libintl.h>'s functions
// (bindtextdomain, dgettext, dngettext), and the model, which has no GTK, needs them.
#pragma once
#include <libintl.h>
