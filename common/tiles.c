#include "tiles.h"

#include <string.h>

static const char *const set_names[CARC_SET_COUNT] = {
    "base", "inns-cathedrals", "besiegers", "cathars", "siege", "apothecaries-tithes",
};

int carc_tile_find(const char *id)
{
    for (int i = 0; i < carc_tiles_count; i++)
        if (strcmp(carc_tiles[i].id, id) == 0)
            return i;
    return -1;
}

int carc_tile_seg_find(int t, const char *name)
{
    if (t < 0 || t >= carc_tiles_count)
        return -1;
    for (int i = 0; i < carc_tiles[t].nsegs; i++)
        if (strcmp(carc_tiles[t].segs[i].name, name) == 0)
            return i;
    return -1;
}

int carc_set_find(const char *name)
{
    for (int i = 0; i < CARC_SET_COUNT; i++)
        if (strcmp(set_names[i], name) == 0)
            return i;
    return -1;
}

const char *carc_set_name(int set)
{
    return set >= 0 && set < CARC_SET_COUNT ? set_names[set] : NULL;
}
