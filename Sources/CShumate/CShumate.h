// The project's floor (Ubuntu 24.04 LTS): an API deprecated after it is fine, one newer than it
// is a warning; newer API goes only behind GTK_CHECK_VERSION / ADW_CHECK_VERSION in the shim.
#define GDK_VERSION_MIN_REQUIRED GDK_VERSION_4_14
#define GDK_VERSION_MAX_ALLOWED GDK_VERSION_4_14
#define ADW_VERSION_MIN_REQUIRED ADW_VERSION_1_5
#define ADW_VERSION_MAX_ALLOWED ADW_VERSION_1_5
#include <shumate/shumate.h>
