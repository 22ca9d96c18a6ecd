/* test_jiggle.c — bones, seeded character, driver, colliders, chains,
 * deformation: against closed forms, the oscillator, and Node's JavaScript
 * for the seeded draws. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim/jiggle.h"
#include "sim/oscillator.h"

static WbJiggle make(int n, uint32_t seed)
{
    WbJiggle j;
    WbError err;
    cr_assert_eq(wb_jiggle_init(&j, n, seed, &err), WB_OK);
    return j;
}

Test(jiggle, init_rejects_bad_bone_counts)
{
    WbJiggle j;
    WbError err;
    cr_assert_eq(wb_jiggle_init(&j, 0, 1, &err), WB_E_INPUT);
    cr_assert_null(j.x);
    cr_assert_eq(wb_jiggle_init(&j, WB_JIGGLE_MAX_BONES + 1, 1, &err), WB_E_INPUT);
}

Test(jiggle, omega_and_zeta_scale_with_inverse_sqrt_size)
{
    WbJiggle j = make(1, 3);
    WbJiggleDef def = wb_jiggle_def_default();
    double w1, z1;
    wb_jiggle_bone_response(&j, &def, 0, &w1, &z1);
    cr_assert_float_eq(w1, 2 * M_PI * def.freq * j.mul_freq[0], 1e-12);
    cr_assert_float_eq(z1, def.damp * j.mul_damp[0], 1e-15);
    static const double sizes[] = {0.5, 0.8, 1.0, 1.5, 2.0};
    for (int i = 0; i < 5; i++) {
        j.size[0] = sizes[i];
        double w, z;
        wb_jiggle_bone_response(&j, &def, 0, &w, &z);
        cr_expect(fabs(w * sqrt(sizes[i]) - w1) <= 1e-13 * w1, "size %g: omega %.17g", sizes[i], w);
        cr_expect(fabs(z * sqrt(sizes[i]) - z1) <= 1e-15, "size %g: zeta %.17g", sizes[i], z);
    }
    wb_jiggle_free(&j);
}

Test(jiggle, size_from_painted_area_is_clamped)
{
    cr_assert_eq(wb_jiggle_size_from_area(0.0, 0.2), 0.5);
    cr_assert_eq(wb_jiggle_size_from_area(0.2, 0.2), 1.0);
    cr_assert_float_eq(wb_jiggle_size_from_area(0.3, 0.2), 1.5, 1e-15);
    cr_assert_eq(wb_jiggle_size_from_area(1.0, 0.2), 2.0);
    cr_assert_eq(wb_jiggle_size_from_area(NAN, 0.2), 0.5);
}

/* Bones step exactly like the oscillator with f = −a_parent + g_bone. */
Test(jiggle, step_is_the_exact_oscillator_per_axis)
{
    WbJiggle j = make(3, 42);
    WbJiggleDef def = wb_jiggle_def_default();
    j.size[1] = 1.7;
    j.size[2] = 0.5;
    const double acc[3] = {3.0, -1.0, 0.5};
    double ref_x[9] = {0}, ref_v[9] = {0};
    for (int s = 0; s < 50; s++) {
        double dt = s % 3 == 0 ? 1.0 / 60 : 1.0 / 240;
        if (s == 25) { /* parameters change mid-run: the cached propagator must follow */
            j.size[1] = 0.9;
            def.freq = 2.5;
        }
        wb_jiggle_step(&j, &def, acc, dt);
        for (int b = 0; b < 3; b++) {
            double w, z;
            wb_jiggle_bone_response(&j, &def, b, &w, &z);
            double f[3] = {-acc[0], -acc[1] - def.gravity * j.mul_grav[b], -acc[2]};
            for (int k = 0; k < 3; k++) wb_osc_step(&ref_x[3 * b + k], &ref_v[3 * b + k], w, z, f[k], dt);
        }
    }
    for (int k = 0; k < 9; k++) {
        cr_assert_eq(j.x[k], ref_x[k]);
        cr_assert_eq(j.v[k], ref_v[k]);
    }
    wb_jiggle_free(&j);
}

Test(jiggle, settles_at_the_static_deflection)
{
    WbJiggle j = make(3, 9);
    WbJiggleDef def = wb_jiggle_def_default();
    const double acc[3] = {2.0, 0.0, -1.0};
    wb_jiggle_step(&j, &def, acc, 200.0); /* one huge exact step */
    for (int b = 0; b < 3; b++) {
        double w, z;
        wb_jiggle_bone_response(&j, &def, b, &w, &z);
        double w2 = w * w;
        cr_expect_float_eq(j.x[3 * b + 0], -2.0 / w2, 1e-12);
        cr_expect_float_eq(j.x[3 * b + 1], -def.gravity * j.mul_grav[b] / w2, 1e-12);
        cr_expect_float_eq(j.x[3 * b + 2], 1.0 / w2, 1e-12);
    }
    wb_jiggle_free(&j);
}

Test(jiggle, seeded_character_is_reproducible_and_in_range)
{
    WbJiggle a = make(5, 7), b = make(5, 1234);
    for (int i = 0; i < 5; i++) {
        cr_assert(a.mul_freq[i] >= 0.45 && a.mul_freq[i] < 1.9);
        cr_assert(a.mul_damp[i] >= 0.6 && a.mul_damp[i] < 1.5);
        cr_assert(a.mul_grav[i] >= 0.4 && a.mul_grav[i] < 1.25);
    }
    cr_assert_neq(a.mul_freq[0], b.mul_freq[0]);
    double f[5], d[5], g[5];
    for (int i = 0; i < 5; i++) f[i] = a.mul_freq[i], d[i] = a.mul_damp[i], g[i] = a.mul_grav[i];
    wb_jiggle_shake(&a, 11.0);
    wb_jiggle_reseed(&a, 99);
    cr_assert_neq(a.mul_freq[0], f[0]);
    wb_jiggle_reseed(&b, 7);
    for (int i = 0; i < 5; i++) {
        cr_assert_eq(b.mul_freq[i], f[i]);
        cr_assert_eq(b.mul_damp[i], d[i]);
        cr_assert_eq(b.mul_grav[i], g[i]);
    }
    cr_assert_eq(b.seed, 7u);
    wb_jiggle_free(&a);
    wb_jiggle_free(&b);
}

/* The draws equal the JavaScript reference's: per bone (freq, damp, grav)
 * as lo + u (hi − lo), then shake continuing the stream. */
Test(jiggle, character_and_shake_match_javascript)
{
    const char *cmd =
        "node -e 'function mulberry32(a){return function(){a|=0;a=a+0x6D2B79F5|0;"
        "let t=Math.imul(a^a>>>15,1|a);t=t+Math.imul(t^t>>>7,61|t)^t;"
        "return((t^t>>>14)>>>0)/4294967296;}}"
        "const rng=mulberry32(7);const rnd=(a,b)=>a+rng()*(b-a);const out=[];"
        "for(let i=0;i<3;i++){out.push(rnd(0.45,1.9),rnd(0.6,1.5),rnd(0.4,1.25));}"
        "for(let i=0;i<9;i++)out.push((rng()-0.5)*11);"
        "for(const v of out)console.log(v.toPrecision(17));'";
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    double want[18];
    int n = 0;
    while (n < 18 && fscanf(p, "%lf", &want[n]) == 1) n++;
    cr_assert_eq(pclose(p), 0, "node failed");
    cr_assert_eq(n, 18);
    WbJiggle j = make(3, 7);
    for (int b = 0; b < 3; b++) {
        cr_expect_eq(j.mul_freq[b], want[3 * b + 0]);
        cr_expect_eq(j.mul_damp[b], want[3 * b + 1]);
        cr_expect_eq(j.mul_grav[b], want[3 * b + 2]);
    }
    wb_jiggle_shake(&j, 11.0);
    for (int k = 0; k < 9; k++) cr_expect_eq(j.v[k], want[9 + k], "shake %d: %.17g vs %.17g", k, j.v[k], want[9 + k]);
    wb_jiggle_free(&j);
}

Test(jiggle, reset_keeps_character)
{
    WbJiggle j = make(2, 5);
    double f0 = j.mul_freq[0];
    wb_jiggle_shake(&j, 11.0);
    WbJiggleDef def = wb_jiggle_def_default();
    const double acc[3] = {1, 2, 3};
    wb_jiggle_step(&j, &def, acc, 0.1);
    wb_jiggle_reset(&j);
    for (int k = 0; k < 6; k++) cr_assert(j.x[k] == 0.0 && j.v[k] == 0.0);
    cr_assert_eq(j.mul_freq[0], f0);
    wb_jiggle_free(&j);
}

/* ---- driver ---------------------------------------------------------------- */

Test(jiggle, driver_has_no_start_up_spike)
{
    WbJiggleDriver d = wb_jiggle_driver_make(WB_JIGGLE_DRIVER_TAU_DEFAULT);
    const double p0[3] = {100.0, -50.0, 7.0};
    double a[3];
    wb_jiggle_driver_update(&d, 1.0 / 60, p0, a);
    cr_assert(a[0] == 0.0 && a[1] == 0.0 && a[2] == 0.0);
    wb_jiggle_driver_update(&d, 1.0 / 60, p0, a);
    cr_assert(a[0] == 0.0 && a[1] == 0.0 && a[2] == 0.0);
}

Test(jiggle, driver_recovers_constant_acceleration)
{
    /* p = ½ A t²: after the smoothing transient, accel → A. */
    WbJiggleDriver d = wb_jiggle_driver_make(WB_JIGGLE_DRIVER_TAU_DEFAULT);
    const double A[3] = {3.0, -9.81, 0.5};
    double a[3] = {0};
    double dt = 1.0 / 120;
    for (int i = 0; i <= 240; i++) {
        double t = i * dt, p[3] = {0.5 * A[0] * t * t, 0.5 * A[1] * t * t, 0.5 * A[2] * t * t};
        wb_jiggle_driver_update(&d, dt, p, a);
    }
    for (int k = 0; k < 3; k++) cr_expect_float_eq(a[k], A[k], 1e-9 * fabs(A[k]), "axis %d: %.17g", k, a[k]);
}

Test(jiggle, driver_constant_velocity_gives_zero_acceleration_and_bounded_start)
{
    WbJiggleDriver d = wb_jiggle_driver_make(WB_JIGGLE_DRIVER_TAU_DEFAULT);
    double a[3], dt = 1.0 / 60, vmax = 0.0;
    double integral = 0.0;
    for (int i = 0; i < 120; i++) {
        double p[3] = {2.0 * i * dt + 10.0, 0.0, 0.0};
        wb_jiggle_driver_update(&d, dt, p, a);
        integral += a[0] * dt;
        vmax = fmax(vmax, fabs(a[0]));
    }
    cr_expect(fabs(a[0]) < 1e-9, "late accel %.17g", a[0]);
    /* ∫a dt = the smoothed velocity, which reaches the true 2.0. */
    cr_expect_float_eq(integral, 2.0, 1e-9);
    /* Starting to move at 2 units/s within one frame is at most 2/dt. */
    cr_expect(vmax <= 2.0 / dt + 1e-9);
}

/* ---- colliders ------------------------------------------------------------- */

Test(jiggle, plane_pushes_out_and_removes_inward_velocity)
{
    WbCollider floor = wb_collider_plane(0, 2, 0, -1); /* y ≥ −1, normal normalised */
    WbColliders set = {&floor, 1, 0.0, 0.0};
    const double rest[3] = {0.0, -0.8, 0.0};
    double x[3] = {0.3, -0.5, 0.1}, v[3] = {1.0, -4.0, 2.0};
    wb_collide_bone(&set, rest, x, v);
    cr_assert_float_eq(rest[1] + x[1], -1.0, 1e-15);
    cr_assert_float_eq(x[0], 0.3, 0.0);
    cr_assert_eq(v[1], 0.0);
    cr_assert(v[0] == 1.0 && v[2] == 2.0);
    /* Restitution 1 reflects the normal velocity. */
    set.restitution = 1.0;
    double x2[3] = {0.0, -0.5, 0.0}, v2[3] = {0.0, -4.0, 0.0};
    wb_collide_bone(&set, rest, x2, v2);
    cr_assert_float_eq(v2[1], 4.0, 1e-15);
    /* Outside: untouched; moving away: velocity kept. */
    double x3[3] = {0.0, 0.5, 0.0}, v3[3] = {0.0, -4.0, 0.0};
    wb_collide_bone(&set, rest, x3, v3);
    cr_assert(x3[1] == 0.5 && v3[1] == -4.0);
}

Test(jiggle, sphere_and_capsule_push_out_along_the_normal)
{
    WbCollider cs[2];
    cs[0] = wb_collider_sphere(1.0, 0.0, 0.0, 0.5);
    const double A[3] = {-1.0, 2.0, 0.0}, B[3] = {1.0, 2.0, 0.0};
    cs[1] = wb_collider_capsule(A, B, 0.25);
    WbColliders set = {cs, 2, 0.0, 0.0};
    const double rest[3] = {0.0, 0.0, 0.0};
    double x[3] = {0.8, 0.1, 0.0}, v[3] = {1.0, -1.0, 0.0};
    wb_collide_bone(&set, rest, x, v);
    double q[3] = {x[0] - 1.0, x[1], x[2]}, len = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
    cr_assert_float_eq(len, 0.5, 1e-14);
    double vn = (v[0] * q[0] + v[1] * q[1]) / len;
    cr_assert(fabs(vn) < 1e-14, "inward velocity left: %g", vn);
    /* Capsule: point just below the segment's middle. */
    double x2[3] = {0.2, 1.9, 0.0}, v2[3] = {0.0, 3.0, 0.0};
    wb_collide_bone(&set, rest, x2, v2);
    cr_assert_float_eq(x2[1], 1.75, 1e-14);
    cr_assert_float_eq(x2[0], 0.2, 1e-15);
    cr_assert_eq(v2[1], 0.0);
    /* Capsule end cap: beyond B the closest point is B. */
    double x3[3] = {1.1, 2.0, 0.0}, v3[3] = {-1.0, 0.0, 0.0};
    wb_collide_bone(&set, rest, x3, v3);
    cr_assert_float_eq(x3[0], 1.25, 1e-14);
    cr_assert_eq(v3[0], 0.0);
}

Test(jiggle, limit_confines_the_offset_to_a_sphere)
{
    WbColliders set = {NULL, 0, 0.4, 0.0};
    const double rest[3] = {5.0, 5.0, 5.0};
    double x[3] = {0.6, 0.0, 0.8}, v[3] = {3.0, 1.0, 4.0};
    wb_collide_bone(&set, rest, x, v);
    cr_assert_float_eq(sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]), 0.4, 1e-15);
    cr_assert_float_eq(x[0] / x[2], 0.75, 1e-14);
    cr_assert(fabs(v[0] * 0.6 + v[2] * 0.8) < 1e-14, "outward velocity left");
    cr_assert_eq(v[1], 1.0);
}

Test(jiggle, collide_applies_per_bone_rest_points)
{
    WbJiggle j = make(2, 1);
    WbCollider floor = wb_collider_plane(0, 1, 0, 0);
    WbColliders set = {&floor, 1, 0.0, 0.0};
    const double rest[6] = {0, 0.5, 0, 0, 2.0, 0};
    j.x[1] = -1.0;
    j.x[4] = -1.0;
    j.v[1] = j.v[4] = -2.0;
    wb_jiggle_collide(&j, &set, rest);
    cr_assert_float_eq(j.x[1], -0.5, 1e-15);
    cr_assert_eq(j.v[1], 0.0);
    cr_assert_eq(j.x[4], -1.0); /* bone 1 rests higher: still above the floor */
    cr_assert_eq(j.v[4], -2.0);
    wb_jiggle_free(&j);
}

/* ---- chains ----------------------------------------------------------------- */

Test(jiggle, chain_links_see_the_acceleration_of_the_links_above)
{
    WbJiggle c = make(4, 3), m = make(4, 3);
    WbJiggleDef def = wb_jiggle_def_default();
    double dt = 1.0 / 60;
    for (int s = 0; s < 30; s++) {
        double root[3] = {s < 10 ? 20.0 : 0.0, 0.0, 0.0};
        wb_jiggle_chain_step(&c, &def, root, dt);
        /* By hand: link i's input = root + Σ_{k<i} Δv_k/dt. */
        double a[3] = {root[0], root[1], root[2]};
        for (int i = 0; i < 4; i++) {
            double v0[3] = {m.v[3 * i], m.v[3 * i + 1], m.v[3 * i + 2]};
            wb_jiggle_step_bone(&m, &def, i, a, dt);
            for (int k = 0; k < 3; k++) a[k] += (m.v[3 * i + k] - v0[k]) / dt;
        }
    }
    for (int k = 0; k < 12; k++) cr_assert_eq(c.x[k], m.x[k]);
    wb_jiggle_free(&c);
    wb_jiggle_free(&m);
}

Test(jiggle, chain_tip_follows_and_settles)
{
    WbJiggle c = make(5, 11);
    WbJiggleDef def = wb_jiggle_def_default();
    def.gravity = 0.0;
    double dt = 1.0 / 60, tips[15];
    const double push[3] = {-6.0, 0.0, 0.0};
    wb_jiggle_chain_step(&c, &def, push, dt);
    wb_jiggle_chain_tips(&c, tips);
    /* Accelerating the root toward −x swings every tip toward +x, the tip most. */
    for (int i = 0; i < 5; i++) cr_assert(tips[3 * i] > 0.0);
    cr_assert(tips[12] > tips[0]);
    /* Held long enough, each link sits at its own static deflection
     * (links above no longer accelerate), and tips are their running sums. */
    for (int s = 0; s < 20; s++) wb_jiggle_chain_step(&c, &def, push, 50.0);
    wb_jiggle_chain_tips(&c, tips);
    double sum = 0.0;
    for (int i = 0; i < 5; i++) {
        double w, z;
        wb_jiggle_bone_response(&c, &def, i, &w, &z);
        sum += 6.0 / (w * w);
        cr_expect_float_eq(c.x[3 * i], 6.0 / (w * w), 1e-9);
        cr_expect_float_eq(tips[3 * i], sum, 1e-9);
    }
    wb_jiggle_free(&c);
}

/* ---- deformation ------------------------------------------------------------ */

Test(jiggle, deform_adds_weighted_bone_offsets)
{
    float pos[6] = {1, 2, 3, -1, 0, 1};
    const float w[6] = {0.5f, 0.25f, 0.0f, 1.0f, 0.0f, 0.5f};
    const double off[9] = {0.2, -0.4, 0.8, 1.0, 1.0, 1.0, -2.0, 0.0, 4.0};
    wb_jiggle_deform(pos, 3, 2, w, 3, off);
    cr_assert_float_eq(pos[0], 1.0f + 0.1f + 0.25f, 1e-6);
    cr_assert_float_eq(pos[1], 2.0f - 0.2f + 0.25f, 1e-6);
    cr_assert_float_eq(pos[2], 3.0f + 0.4f + 0.25f, 1e-6);
    cr_assert_float_eq(pos[3], -1.0f + 0.2f - 1.0f, 1e-6);
    cr_assert_float_eq(pos[4], 0.0f - 0.4f, 1e-6);
    cr_assert_float_eq(pos[5], 1.0f + 0.8f + 2.0f, 1e-6);
    float p2[2] = {0, 0};
    const float w2[3] = {1.0f, 1.0f, 1.0f};
    wb_jiggle_deform(p2, 2, 1, w2, 3, off);
    cr_assert_float_eq(p2[0], -0.8f, 1e-6);
    cr_assert_float_eq(p2[1], 0.6f, 1e-6);
}

Test(jiggle, neutral_character_and_finiteness)
{
    WbJiggle j = make(3, 77);
    wb_jiggle_neutral(&j);
    WbJiggleDef def = wb_jiggle_def_default();
    double w, z;
    wb_jiggle_bone_response(&j, &def, 2, &w, &z);
    cr_assert_float_eq(w, 2 * M_PI * def.freq, 1e-13);
    cr_assert_eq(z, def.damp);
    cr_assert(wb_jiggle_all_finite(&j));
    j.v[4] = NAN;
    cr_assert_not(wb_jiggle_all_finite(&j));
    wb_jiggle_free(&j);
}

Test(jiggle, drive_point_and_walk_bob)
{
    const double body[3] = {1.0, 2.0, -3.0};
    double p[3];
    wb_jiggle_drive_point(0.5, 0.25, body, 0.04, 0.22, p);
    cr_assert_float_eq(p[0], 0.02 + 0.22, 1e-15);
    cr_assert_float_eq(p[1], -0.01 + 0.44, 1e-15);
    cr_assert_float_eq(p[2], -0.66, 1e-15);
    cr_assert_float_eq(wb_jiggle_walk_bob(0.0, 0.22), -0.22, 1e-15);
    cr_assert_float_eq(wb_jiggle_walk_bob(M_PI / (2 * WB_JIGGLE_WALK_RATE), 0.22), 0.0, 1e-15);
    /* A steady orbit (constant yaw rate) drives no acceleration once smoothed. */
    WbJiggleDriver d = wb_jiggle_driver_make(WB_JIGGLE_DRIVER_TAU_DEFAULT);
    double a[3], zero[3] = {0, 0, 0};
    for (int i = 0; i < 200; i++) {
        wb_jiggle_drive_point(0.6 + 1.5 * i / 60.0, 0.5, zero, WB_JIGGLE_ORBIT_DRIVE_DEFAULT, 0.22, p);
        wb_jiggle_driver_update(&d, 1.0 / 60, p, a);
    }
    cr_assert(fabs(a[0]) < 1e-9 && a[1] == 0.0 && a[2] == 0.0);
}

/* A chain's collider acts on each joint (rest_i + tip_i): a floor under the
 * second joint lifts link 1 and everything below it rides along; the
 * joint's velocity into the floor (Σ v_k, not link 1's own) is taken off
 * link 1.  Joints above and an untouched chain keep their bits. */
Test(jiggle, chain_collider_pushes_joints_and_the_links_below_ride_along)
{
    WbJiggle c = make(3, 5);
    WbCollider floor = wb_collider_plane(0, 1, 0, -1.0); /* joints keep y ≥ −1 */
    WbColliders set = {&floor, 1, 0.0, 0.0};
    const double rest[9] = {0, 0, 0, 0, -0.5, 0, 0, 0.5, 0};
    const double x0[9] = {0.1, -0.2, 0, 0.05, -0.6, 0, 0.0, -0.1, 0};
    const double v0[9] = {0.0, -1.0, 0, 0.5, -2.0, 0, 0.0, 0.25, 0};
    memcpy(c.x, x0, sizeof x0);
    memcpy(c.v, v0, sizeof v0);
    /* joint 0 at y −0.2 (free); joint 1 at −0.5 − 0.2 − 0.6 = −1.3 (0.3 deep,
     * moving at −3 into the floor); joint 2 rides on it */
    wb_jiggle_chain_collide(&c, &set, rest);
    double tips[9];
    wb_jiggle_chain_tips(&c, tips);
    cr_assert(c.x[0] == x0[0] && c.x[1] == x0[1] && c.v[1] == v0[1], "joint 0 was touched");
    cr_assert_float_eq(rest[4] + tips[4], -1.0, 1e-14);
    cr_assert_float_eq(c.x[4], -0.3, 1e-14);
    cr_assert_float_eq(c.v[1] + c.v[4], 0.0, 1e-15); /* the joint stops; v1 = +1 */
    cr_assert_eq(c.v[3], 0.5);                       /* tangential kept */
    /* joint 2 (rest y 0.5) moved up with joint 1 and was never inside: its
     * own link untouched */
    cr_assert(c.x[7] == x0[7] && c.v[7] == v0[7]);
    cr_assert_float_eq(rest[7] + tips[7], 0.5 - 0.2 - 0.3 - 0.1, 1e-14);
    /* Nothing inside: bits kept. */
    WbJiggle d = make(3, 5);
    memcpy(d.x, x0, sizeof x0);
    memcpy(d.v, v0, sizeof v0);
    WbCollider low = wb_collider_plane(0, 1, 0, -10.0);
    WbColliders far = {&low, 1, 0.0, 0.0};
    wb_jiggle_chain_collide(&d, &far, rest);
    cr_assert(!memcmp(d.x, x0, sizeof x0) && !memcmp(d.v, v0, sizeof v0));
    wb_jiggle_free(&c);
    wb_jiggle_free(&d);
}

/* In a chain `limit` bounds each link's own offset (the stretch of one
 * link), so the tip of link i may travel up to (i + 1)·limit; and a joint
 * pushed by a collider stays out even when that stretches its link. */
Test(jiggle, chain_limit_bounds_each_link_and_colliders_win)
{
    WbJiggle c = make(3, 5);
    WbColliders set = {NULL, 0, 0.4, 0.0};
    const double rest[9] = {0};
    for (int i = 0; i < 3; i++) c.x[3 * i] = 0.5;
    wb_jiggle_chain_collide(&c, &set, rest);
    double tips[9];
    wb_jiggle_chain_tips(&c, tips);
    for (int i = 0; i < 3; i++) cr_assert_float_eq(c.x[3 * i], 0.4, 1e-15);
    cr_assert_float_eq(tips[6], 1.2, 1e-15);
    /* a ball at x = 1.05, radius 0.2, round joint 2 (at 1.2; joint 1 at 0.8
     * is outside): joint 2 goes out to 1.25, link 2 stretches to 0.45 */
    WbCollider ball = wb_collider_sphere(1.05, 0.0, 0.0, 0.2);
    set.items = &ball;
    set.count = 1;
    wb_jiggle_chain_collide(&c, &set, rest);
    wb_jiggle_chain_tips(&c, tips);
    cr_assert_float_eq(tips[6], 1.25, 1e-14);
    cr_assert_float_eq(c.x[6], 0.45, 1e-14);
    cr_assert(c.x[0] == 0.4 && c.x[3] == 0.4);
    wb_jiggle_free(&c);
}
