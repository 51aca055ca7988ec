/* status.c: see status.h. */
#include "util/status.h"

#define SRV__NAME(name, text) #name,
static const char *const names[] = {SRV_STATUS_MAP(SRV__NAME)};
#undef SRV__NAME
#define SRV__TEXT(name, text) text,
static const char *const texts[] = {SRV_STATUS_MAP(SRV__TEXT)};
#undef SRV__TEXT

/* The index of server code status in the tables, or -1. */
static int server_index(int status)
{
    if (status > -CARC__EPOS_COUNT || status < SRV_STATUS_MIN)
        return -1;
    return -status - CARC__EPOS_COUNT;
}

const char *srv_status_name(int status)
{
    if (status == 0)
        return "OK";
    int i = server_index(status);
    if (i >= 0)
        return names[i];
    return status > -CARC__EPOS_COUNT && status < 0 ? carc_err_name(status) : "unknown_status";
}

const char *srv_status_str(int status)
{
    if (status == 0)
        return "ok";
    int i = server_index(status);
    if (i >= 0)
        return texts[i];
    return status > -CARC__EPOS_COUNT && status < 0 ? carc_err_str(status) : "unknown status";
}
