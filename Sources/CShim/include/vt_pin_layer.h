// VtPinLayer: a map layer that draws every pin and pin group in view itself, from images made
// once, and finds which one is under a point (a ShumateLayer subclass).
#pragma once
#include "vt_platform.h"

G_BEGIN_DECLS

#define VT_TYPE_PIN_LAYER (vt_pin_layer_get_type())
G_DECLARE_FINAL_TYPE(VtPinLayer, vt_pin_layer, VT, PIN_LAYER, ShumateLayer)

typedef enum {
    VT_PIN_MARK_PIN,        // one pin: the location icon, its tip on the place
    VT_PIN_MARK_PIN_MUTED,  // one pin in edit mode (grey)
    VT_PIN_MARK_GROUP,      // several pins: a round badge with `count`, centred on the place
    VT_PIN_MARK_PHOTO,      // a photo where it was taken: its image `key` in a round frame, centred;
                            // `count` > 1 adds a small badge (photos grouped under the first)
    VT_PIN_MARK_PHOTO_SELECTED, // the same, larger, in an accent-coloured ring
} VtPinMarkKind;

typedef struct {
    double latitude, longitude;
    VtPinMarkKind kind;
    guint count;
    guint64 key;            // photo marks: which image (see vt_pin_layer_set_photo_image)
} VtPinMark;

VtPinLayer *vt_pin_layer_new(ShumateViewport *viewport);
// Draws exactly these marks (copied), later ones over earlier ones.
void vt_pin_layer_set_marks(VtPinLayer *self, const VtPinMark *marks, guint n_marks);
// The mark drawn at (x, y) in the layer's coordinates (the topmost), or -1.
int vt_pin_layer_mark_at(VtPinLayer *self, double x, double y);
// The mark drawn lighter, as under the pointer (-1 for none).
void vt_pin_layer_set_hovered(VtPinLayer *self, int index);
// The image photo marks with `key` show (NULL: a plain disc until it is known). The layer draws
// its own small round copy once, so `texture` is not kept.
void vt_pin_layer_set_photo_image(VtPinLayer *self, guint64 key, GdkTexture *texture);

G_END_DECLS
