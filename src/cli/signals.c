/* signals.c — SIGINT and SIGTERM while a command makes frames (render,
 * check): the frame loop stops between frames (WbFrameLoop.stop) instead
 * of the process dying in the middle of a write, and the command keeps and
 * reports what it did. */
#include "cli/cli.h"

#include <string.h>

volatile sig_atomic_t wb_cli_stop;

static void on_signal(int sig) { wb_cli_stop = sig; }

void wb_cli_signals_catch(WbCliSignals *old)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    wb_cli_stop = 0;
    sigaction(SIGINT, &sa, &old->sig_int);
    sigaction(SIGTERM, &sa, &old->sig_term);
}

void wb_cli_signals_restore(const WbCliSignals *old)
{
    sigaction(SIGINT, &old->sig_int, NULL);
    sigaction(SIGTERM, &old->sig_term, NULL);
}
