// VtTileSource: a ShumateDataSource with the app's own SoupSession (its User-Agent: libshumate's
// downloader ignores shumate_set_user_agent with libsoup 3), cache policy and fault handling.
#pragma once
#include "vt_platform.h"

G_BEGIN_DECLS

#define VT_TYPE_TILE_SOURCE (vt_tile_source_get_type())
G_DECLARE_FINAL_TYPE(VtTileSource, vt_tile_source, VT, TILE_SOURCE, ShumateDataSource)
// Whether `bytes` is a whole image, not cut short and not an error page (the check is Swift's).
typedef gboolean (*VtTileCheck)(GBytes *bytes);
// `url_template` has {z}, {x} and {y}; tiles are cached under `cache_dir` in a ShumateFileCache
// keyed by `cache_key`, at most `cache_size_limit` bytes; `session` is shared with the rest of
// the app. Only tiles that pass `check` are drawn or cached.
VtTileSource *vt_tile_source_new(const char *url_template, SoupSession *session, const char *cache_dir,
                                 const char *cache_key, guint cache_size_limit, VtTileCheck check);

G_END_DECLS
