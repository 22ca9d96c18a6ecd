/* Output paths that make their own folders (PNG sequences): the check
 * before anything is written, the folders made at open, and their removal
 * when nothing is kept — which must never touch a folder that was there. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/outpath.h"

static char root[64];

static void make_root(void)
{
    snprintf(root, sizeof root, "/tmp/wb_outpath_XXXXXX");
    cr_assert_not_null(mkdtemp(root));
}

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

Test(outpath, creatable_accepts_missing_folders_and_refuses_a_file_in_the_way)
{
    make_root();
    char path[256], file[256];
    WbError e;
    wb_error_clear(&e);
    snprintf(path, sizeof path, "%s/a/b/f_0000.png", root);
    cr_expect_eq(wb_outpath_check_creatable(path, &e), WB_OK, "%s", e.msg);
    cr_expect(!is_dir(path), "the check made something");
    /* The plain check still wants the folder to exist. */
    cr_expect_eq(wb_outpath_check(path, &e), WB_E_IO);

    snprintf(file, sizeof file, "%s/a", root);
    FILE *f = fopen(file, "w");
    cr_assert_not_null(f);
    fclose(f);
    cr_expect_eq(wb_outpath_check_creatable(path, &e), WB_E_IO);
    cr_expect(strstr(e.msg, path) != NULL, "message does not name the path: %s", e.msg);
    unlink(file);
    rmdir(root);
}

Test(outpath, made_folders_go_again_and_only_they)
{
    make_root();
    char path[256], dir[256];
    WbError e;
    wb_error_clear(&e);
    snprintf(path, sizeof path, "%s/x/y/z/f_0001.png", root);
    size_t made = 0;
    cr_assert_eq(wb_outpath_make_folders(path, &made, &e), WB_OK, "%s", e.msg);
    snprintf(dir, sizeof dir, "%s/x/y/z", root);
    cr_expect(is_dir(dir));
    cr_expect_eq(made, strlen(root) + 2, "made marks %s/x", root);
    wb_outpath_unmake_folders(path, made);
    snprintf(dir, sizeof dir, "%s/x", root);
    cr_expect(!is_dir(dir), "the folders made stayed");
    cr_expect(is_dir(root), "the folder that was there went");

    /* Everything there already: nothing made, nothing removed. */
    snprintf(dir, sizeof dir, "%s/x", root);
    cr_assert_eq(mkdir(dir, 0777), 0);
    snprintf(path, sizeof path, "%s/x/f_0001.png", root);
    cr_assert_eq(wb_outpath_make_folders(path, &made, &e), WB_OK, "%s", e.msg);
    cr_expect_eq(made, 0);
    wb_outpath_unmake_folders(path, made);
    cr_expect(is_dir(dir));

    /* A made folder that is not empty is kept. */
    snprintf(path, sizeof path, "%s/x/new/f_0001.png", root);
    cr_assert_eq(wb_outpath_make_folders(path, &made, &e), WB_OK, "%s", e.msg);
    char keep[256];
    snprintf(keep, sizeof keep, "%s/x/new/keep.txt", root);
    FILE *f = fopen(keep, "w");
    cr_assert_not_null(f);
    fclose(f);
    wb_outpath_unmake_folders(path, made);
    cr_expect(access(keep, F_OK) == 0, "a folder with a file in it was removed");
    unlink(keep);
    snprintf(dir, sizeof dir, "%s/x/new", root);
    rmdir(dir);
    snprintf(dir, sizeof dir, "%s/x", root);
    rmdir(dir);
    rmdir(root);
}
