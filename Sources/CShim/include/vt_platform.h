// The libraries the shim (and, through it, GtkKit) builds on, and the project's floor.
#pragma once
// The floor is Ubuntu 24.04 LTS: an API deprecated after it is fine, one newer than it is a
// warning; newer API goes only behind GTK_CHECK_VERSION / ADW_CHECK_VERSION in the shim.
#define GDK_VERSION_MIN_REQUIRED GDK_VERSION_4_14
#define GDK_VERSION_MAX_ALLOWED GDK_VERSION_4_14
#define ADW_VERSION_MIN_REQUIRED ADW_VERSION_1_5
#define ADW_VERSION_MAX_ALLOWED ADW_VERSION_1_5
#include <adwaita.h>
#include <shumate/shumate.h>
#include <libsoup/soup.h>
#include <glib-unix.h>
#include <math.h>

#if !GTK_CHECK_VERSION(4, 14, 0) || !ADW_CHECK_VERSION(1, 5, 0) || !SOUP_CHECK_VERSION(3, 4, 0)
#error "Virtual Tourist needs GTK >= 4.14, libadwaita >= 1.5, libsoup >= 3.4 (./meson-helpers/dev runs in a Debian 13 root when the system is older)"
#endif
#if !SHUMATE_CHECK_VERSION(1, 2, 0)
#error "Virtual Tourist needs libshumate >= 1.2"
#endif
