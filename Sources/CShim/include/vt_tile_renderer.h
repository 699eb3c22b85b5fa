// VtTileRenderer: raster map tiles decoded off the main thread into the pixel format GTK's
// software renderer draws without converting (see tile_renderer.c).
#pragma once
#include "vt_platform.h"

G_BEGIN_DECLS

// Tiles are 256 or 512 px; an image bigger than this on a side is not a tile (a 20000 × 20000
// PNG fits in 50 kB) and is refused before it is decoded.
#define VT_TILE_MAX_SIDE 1024

#define VT_TYPE_TILE_RENDERER (vt_tile_renderer_get_type())
G_DECLARE_FINAL_TYPE(VtTileRenderer, vt_tile_renderer, VT, TILE_RENDERER, ShumateMapSource)
// The arguments are shumate_raster_renderer_new_full's; the renderer holds `data_source`.
VtTileRenderer *vt_tile_renderer_new(const char *id, const char *name, const char *license, const char *license_uri,
                                     guint min_zoom, guint max_zoom, guint tile_size,
                                     ShumateMapProjection projection, ShumateDataSource *data_source);
// Tiles filled from now on are recoloured for a dark style (see tile_renderer.c's darken).
void vt_tile_renderer_set_dark(VtTileRenderer *self, gboolean dark);
// Tiles asked of this renderer so far. Each map gets its own renderer over the shared data
// source, so this says whether that one map has asked for any (see MapView.wakeTiles).
guint vt_tile_renderer_get_fills(VtTileRenderer *self);
// After a map let its tiles go: their 256 KB blocks, freed back to malloc, stay in its arenas
// (glibc raises its mmap threshold past their size once one is freed); trimmed, their pages
// return to the system. malloc_trim is in <malloc.h>, which Swift's Glibc module leaves out.
void vt_tile_renderer_return_memory(void);

G_END_DECLS
