// The C shim, for GtkKit only (the app reaches GTK through GtkKit): what Swift cannot import
// from GLib, GTK, libadwaita, libshumate and libsoup, or cannot do safely. One header per concern.
#pragma once
#include "vt_platform.h"      // the libraries and the project's floor
#include "vt_casts.h"         // checked casts (GObject's cast macros do not import)
#include "vt_signals.h"       // signal connections with typed handlers (G_CALLBACK is a cast)
#include "vt_calls.h"         // variadic and GValue calls
#include "vt_main_queue.h"    // Swift's main actor drained from the GLib loop
#include "vt_tile_source.h"   // map tiles over the app's SoupSession (a GObject subclass)
#include "vt_tile_renderer.h" // map tiles decoded off the main thread (a ShumateMapSource subclass)
#include "vt_pin_layer.h"     // the pins drawn by one map layer (a ShumateLayer subclass)
#include "vt_resources.h"     // the app's resources (its CSS), compiled in
#include "vt_shortcuts_help.h" // the Keyboard Shortcuts help: AdwShortcutsDialog from libadwaita 1.8
#include "vt_keyring.h"       // the Flickr key's keyring schema (libsecret)
#include "vt_soup_hang_up.h"  // a request awaiting its headers ended by hanging up (a libsoup bug)
