/* load_proc.c: see load_proc.h. */
#define _XOPEN_SOURCE 700 /* nftw */
#include "load_proc.h"

#include <dirent.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "http.h"
#include "ws.h"

/* CPU time (user + system) the process has used, in seconds; -1 when unknown. */
double load_cpu_s(pid_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    /* Fields 14 and 15, counted after the command name, which may hold spaces. */
    const char *p = strrchr(buf, ')');
    unsigned long long ut = 0, st = 0;
    if (p == NULL ||
        sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
        return -1;
    return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

long load_rss_kib(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    long kib = -1;
    if (f == NULL)
        return -1;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "VmRSS:", 6) == 0)
            kib = strtol(line + 6, NULL, 10);
    fclose(f);
    return kib;
}

static pid_t child = -1;
static char data_dir[64];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

void load_server_stop(void)
{
    if (child > 0) {
        int status;
        kill(child, SIGTERM);
        waitpid(child, &status, 0);
        child = -1;
    }
    if (data_dir[0]) {
        nftw(data_dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
        data_dir[0] = '\0';
    }
}

pid_t load_server_start(const char *carcd, char **extra, int nextra, int conns, int rooms,
                        char *url, size_t urlsize)
{
    snprintf(data_dir, sizeof data_dir, "/tmp/carc-load-XXXXXX");
    if (mkdtemp(data_dir) == NULL) {
        data_dir[0] = '\0';
        perror("carc-load: mkdtemp");
        return -1;
    }
    char conf[96];
    snprintf(conf, sizeof conf, "%s/carcd.conf", data_dir);
    FILE *f = fopen(conf, "w");
    if (f == NULL) {
        perror("carc-load: config");
        return -1;
    }
    /* Six clients per room from one address each (or all from one). */
    fprintf(f, "max-conns-per-ip = %d\nmax-rooms = %d\nlog-level = warn\n", conns + 64, rooms + 64);
    /* ... and every room created from it, at once. */
    fprintf(f, "create-rate-per-ip = %d\nlobby-rooms-per-ip = %d\n", rooms + 64, rooms + 64);
    fclose(f);
    int fds[2];
    if (pipe(fds) < 0)
        return -1;
    char *args[64];
    int n = 0;
    args[n++] = (char *)carcd;
    args[n++] = "--listen";
    args[n++] = "127.0.0.1";
    args[n++] = "--port";
    args[n++] = "0";
    args[n++] = "--data-dir";
    args[n++] = data_dir;
    args[n++] = "--config";
    args[n++] = conf;
    for (int i = 0; i < nextra && n < 62; i++)
        args[n++] = extra[i];
    args[n] = NULL;
    child = fork();
    if (child < 0)
        return -1;
    if (child == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        execv(carcd, args);
        perror("carc-load: exec carcd");
        _exit(127);
    }
    close(fds[1]);
    FILE *in = fdopen(fds[0], "r");
    char line[512];
    while (in && fgets(line, sizeof line, in)) {
        const char *p = strstr(line, "carcd listening on http://");
        if (p == NULL)
            continue;
        p += strlen("carcd listening on http://");
        size_t hl = strcspn(p, "/\n");
        snprintf(url, urlsize, "ws://%.*s/ws", (int)hl, p);
        /* Keep reading the server's output in the background, so it never blocks on a full
         * pipe: hand it to a child that copies it to stderr. */
        if (fork() == 0) {
            while (fgets(line, sizeof line, in))
                fputs(line, stderr);
            _exit(0);
        }
        fclose(in);
        return child;
    }
    fprintf(stderr, "carc-load: carcd did not print its startup line\n");
    if (in)
        fclose(in);
    return -1;
}

/* The number after "key": inside the object "object":{...} of a JSON text
 * written by carcd's loopstat_json (flat objects of numbers: no nesting to
 * skip). Returns 0, or -1 when absent. */
static int stats_num(const char *json, const char *object, const char *key, double *out)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":{", object);
    const char *o = strstr(json, pat);
    if (o == NULL)
        return -1;
    const char *close = strchr(o, '}');
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *k = strstr(o, pat);
    if (k == NULL || close == NULL || k > close)
        return -1;
    char *end;
    *out = strtod(k + strlen(pat), &end);
    return end == k + strlen(pat) ? -1 : 0;
}

/* One line "label: p50 X p99 X max X (N)" of a histogram (keys prefixed
 * with prefix); -1 when the figures are not there. */
static int stats_line(const char *json, const char *label, const char *object, const char *prefix,
                      const char *count_key)
{
    static const char *const keys[] = {"p50_us", "p99_us", "max_us"};
    double v[3], n;
    char key[32];
    for (int i = 0; i < 3; i++) {
        snprintf(key, sizeof key, "%s%s", prefix, keys[i]);
        if (stats_num(json, object, key, &v[i]) < 0)
            return -1;
    }
    if (stats_num(json, object, count_key, &n) < 0)
        return -1;
    printf("%s: p50 %.1f p99 %.1f max %.1f (%.0f)\n", label, v[0], v[1], v[2], n);
    return 0;
}

void load_print_loop_stats(const char *url)
{
    char host[256], port[16], path[512], err[256];
    int status;
    char *body = NULL;
    if (ws_url_split(url, host, sizeof host, port, sizeof port, path, sizeof path) < 0) {
        printf("loop_stats: unavailable (bad url %s)\n", url);
        return;
    }
    if (http_get(host, port, "/api/stats", 5000, &status, &body, err, sizeof err) < 0) {
        printf("loop_stats: unavailable (%s)\n", err);
        return;
    }
    if (status != 200) {
        printf("loop_stats: unavailable%s\n", status == 404 ? "" : " (not 200)");
    } else {
        double ratio;
        if (stats_line(body, "loop_busy_us", "loop", "busy_", "iterations") < 0 ||
            stats_line(body, "store_loop_us", "store_loop", "", "count") < 0 ||
            stats_line(body, "store_commit_us", "store_commit", "", "count") < 0)
            printf("loop_stats: unavailable (unexpected reply)\n");
        else if (stats_num(body, "loop", "busy_ratio", &ratio) == 0)
            printf("loop_busy_ratio: %.4f\n", ratio);
    }
    free(body);
}

long load_fd_count(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
    DIR *d = opendir(path);
    if (d == NULL)
        return -1;
    long n = 0;
    const struct dirent *e;
    while ((e = readdir(d)) != NULL)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}
