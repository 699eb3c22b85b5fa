#pragma once
#include <adwaita.h>
#include <shumate/shumate.h>
#include <libsoup/soup.h>
