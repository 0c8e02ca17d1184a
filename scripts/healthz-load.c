// A tiny loopback load generator for the HTTP layer's cost per request (issue 14 item 4):
//   cc -O2 -pthread -o /tmp/healthz-load scripts/healthz-load.c
//   /tmp/healthz-load PORT CONNECTIONS SECONDS [PID]
// Each of CONNECTIONS threads sends `GET /healthz` and reads the answer, reusing its connection unless the server
// answered `Connection: close`. With PID, it reads the server's user+system CPU from /proc/PID/stat before and after
// and prints the server CPU µs per answered request. Loopback only; ends after SECONDS.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int port;
static atomic_int running = 1;
static atomic_long answered, connections, failures;

static int dial(void) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons(port)};
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct timeval timeout = {.tv_sec = 5};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    if (connect(fd, (struct sockaddr *)&address, sizeof address) != 0) { close(fd); return -1; }
    atomic_fetch_add(&connections, 1);
    return fd;
}

static void *worker(void *unused) {
    (void)unused;
    const char request[] = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    char buffer[8192];
    int fd = -1;
    while (atomic_load(&running)) {
        if (fd < 0 && (fd = dial()) < 0) { atomic_fetch_add(&failures, 1); usleep(1000); continue; }
        if (send(fd, request, sizeof request - 1, MSG_NOSIGNAL) != (ssize_t)(sizeof request - 1)) goto broken;
        size_t have = 0;
        long length = -1;
        size_t head = 0;
        int closeAfter = 0;
        for (;;) {
            ssize_t got = recv(fd, buffer + have, sizeof buffer - 1 - have, 0);
            if (got <= 0) goto broken;
            have += (size_t)got;
            buffer[have] = 0;
            if (head == 0) {
                char *end = strstr(buffer, "\r\n\r\n");
                if (end == NULL) continue;
                head = (size_t)(end - buffer) + 4;
                char *cl = strcasestr(buffer, "\r\ncontent-length:");
                length = cl != NULL && cl < end ? strtol(cl + 17, NULL, 10) : 0;
                char *connection = strcasestr(buffer, "\r\nconnection: close");
                closeAfter = connection != NULL && connection < end;
            }
            if (have >= head + (size_t)length) break;
        }
        atomic_fetch_add(&answered, 1);
        if (closeAfter) { close(fd); fd = -1; }
        continue;
    broken:
        atomic_fetch_add(&failures, 1);
        if (fd >= 0) close(fd);
        fd = -1;
    }
    if (fd >= 0) close(fd);
    return NULL;
}

static double cpuSeconds(const char *pid) {
    char path[64], text[4096];
    snprintf(path, sizeof path, "/proc/%s/stat", pid);
    FILE *file = fopen(path, "r");
    if (file == NULL) return -1;
    size_t n = fread(text, 1, sizeof text - 1, file);
    fclose(file);
    text[n] = 0;
    char *p = strrchr(text, ')');  // fields after the command name; utime and stime are fields 14 and 15
    if (p == NULL) return -1;
    unsigned long utime = 0, stime = 0;
    int field = 2;
    for (char *token = strtok(p + 1, " "); token != NULL; token = strtok(NULL, " ")) {
        field++;
        if (field == 14) utime = strtoul(token, NULL, 10);
        if (field == 15) { stime = strtoul(token, NULL, 10); break; }
    }
    return (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK);
}

int main(int argc, char **argv) {
    if (argc < 4) { fprintf(stderr, "usage: healthz-load PORT CONNECTIONS SECONDS [PID]\n"); return 2; }
    port = atoi(argv[1]);
    int count = atoi(argv[2]);
    int seconds = atoi(argv[3]);
    if (count < 1 || count > 1024 || seconds < 1 || seconds > 120) { fprintf(stderr, "out of range\n"); return 2; }
    double before = argc > 4 ? cpuSeconds(argv[4]) : 0;
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    pthread_t threads[1024];
    for (int i = 0; i < count; i++) pthread_create(&threads[i], NULL, worker, NULL);
    sleep((unsigned)seconds);
    atomic_store(&running, 0);
    for (int i = 0; i < count; i++) pthread_join(threads[i], NULL);
    clock_gettime(CLOCK_MONOTONIC, &end);
    double after = argc > 4 ? cpuSeconds(argv[4]) : 0;
    double elapsed = (double)(end.tv_sec - start.tv_sec) + (double)(end.tv_nsec - start.tv_nsec) / 1e9;
    long done = atomic_load(&answered);
    printf("answered %ld in %.2f s (%.0f/s), connections %ld, failures %ld", done, elapsed, done / elapsed,
           atomic_load(&connections), atomic_load(&failures));
    if (argc > 4 && done > 0) printf(", server CPU %.1f us/request", (after - before) * 1e6 / (double)done);
    printf("\n");
    return 0;
}
