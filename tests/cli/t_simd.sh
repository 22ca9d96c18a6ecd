# Every vector width gives the same bytes: WOBBLE_SIMD caps the width the
# kernels pick (core/cpu.h), so one render per width must agree, PNG frames
# (the solvers and the raster) and y4m (the YUV conversion) alike.  On a
# CPU without the wider widths the runs are capped and agree trivially.

simd_same() { # EXAMPLE ARGS…: the same md5 at widths 4, 8 and 16
    ex=$1; shift
    first=
    for w in 4 8 16; do
        rm -rf "f$w" && mkdir "f$w"
        WOBBLE_SIMD=$w "$WOBBLE" render "$ROOT/examples/$ex.yaml" -q "$@" -o "f$w/f_%04d.png" ||
            fail "$ex: render at width $w failed"
        WOBBLE_SIMD=$w "$WOBBLE" render "$ROOT/examples/$ex.yaml" -q "$@" -o "f$w/a.y4m" ||
            fail "$ex: y4m at width $w failed"
        sum=$(cat "f$w"/* | md5sum)
        [ -z "$first" ] && first=$sum
        [ "$sum" = "$first" ] || fail "$ex: width $w differs from width 4"
    done
}

test_simd_widths_photo() {
    simd_same photo-grab --size 322x182 --frames 0:30
}

# The 3D raster's wide triangles, shaded two pixels per vector from width 8,
# at a size where they are wide: the jiggle floor's flat near cells, the
# flag's pole (lit) and its floor's fogged squares (vertex colours).
test_simd_widths_wide_triangles() {
    simd_same jiggle-walker --size 1280x720 --frames 0:3
    simd_same cloth-flag-wind --size 1280x720 --frames 0:3
}

# Narrow triangles of a few pixels, walked and shaded four pixels per
# vector at width 16 (opaque flat or interpolated colours, 4 samples): the
# orb's lit mesh, its floor's far cells and its contact shadow (blended,
# so one pixel at a time), every box width modulo four.
test_simd_widths_small_triangles() {
    simd_same jiggle-orb --size 640x360 --frames 0:4
}

test_simd_widths_cloth() {
    simd_same cloth-flag-wind --size 320x180 --frames 0:12
}

# The cloth kernels at each width: the body passes, dihedral bending and
# the stretch limit (the silk on the dress form), self-collision and the
# ball (the drop), late enough that the cloth touches them.
test_simd_widths_cloth_bodies() {
    simd_same cloth-silk-mannequin --size 320x180 --frames 40:52
}

test_simd_widths_cloth_self() {
    simd_same cloth-drop-self --size 320x180 --frames 50:60
}
