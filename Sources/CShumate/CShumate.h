#include <shumate/shumate.h>
