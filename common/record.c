#include "record.h"

#include <stddef.h>

void carc_record_config(const struct carc_record *rec, struct carc_config *cfg)
{
    cfg->nplayers = rec->nplayers;
    cfg->sets = rec->sets;
    cfg->no_farmers = rec->no_farmers;
    cfg->escape_rule = rec->escape_rule;
    cfg->farm_rule = rec->farm_rule;
    cfg->small_city = rec->small_city;
    cfg->start = rec->start;
    cfg->seed = rec->seed;
    cfg->deck = rec->has_deck ? rec->deck : NULL;
    cfg->deck_len = rec->has_deck ? rec->deck_len : 0;
}

int carc_record_start(const struct carc_record *rec, struct carc_game *g, struct carc_error *err)
{
    struct carc_config cfg;
    carc_record_config(rec, &cfg);
    return carc_game_init(g, &cfg, err);
}

int carc_record_step(const struct carc_record *rec, int i, struct carc_game *g,
                     struct carc_error *err)
{
    if (i < 0 || i >= rec->nmoves)
        return carc_error_set(err, CARC_E_INVAL, "no move %d", i);
    if (g->phase == CARC_PHASE_OVER)
        return carc_error_set(err, CARC_E_OVER, "the game ended before move %d", i);
    struct carc_move m = rec->moves[i];
    m.player = g->current;
    return carc_game_play(g, &m, err);
}
