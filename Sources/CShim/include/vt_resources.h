// The app's GResource bundle (data/style.css …), compiled into resources.c.
#pragma once
#include "vt_platform.h"

G_BEGIN_DECLS
void vt_resources_register_resource(void);
G_END_DECLS
