# Jiggle scenes checked the way a user drives them: documented key ranges at
# their ends, events at the edges of the timeline, and what each view draws.

# jiggle_orb_scene FILE: a small 3D orb with a floor and no drive.
jiggle_orb_scene() {
    cat > "$1" <<'YAML'
wobble: 1
kind: jiggle
output: {width: 64, height: 36, fps: 10, duration: 0.2}
jiggle: {view: 3d, shape: orb, colour: "#ee9e8c", floor: {y: -0.86}}
YAML
}

# camera.distance 0 ("fit the shape") put the camera at r/tan(fov/2), which
# is inside the shape from fov ~115 deg on: at the documented fov 150 the orb
# vanished and only the floor was drawn.  The orb is at the frame's centre at
# every fov now.
test_jiggle_wide_fov_still_shows_the_shape() {
    jiggle_orb_scene o.yaml
    for fov in 40 120 150; do
        expect_exit 0 "$WOBBLE" render o.yaml -q --set jiggle.camera.fov=$fov -o "f$fov-%04d.png"
        set -- $(pixel "f$fov-0000.png" 32 18)
        [ $(($1 - $3)) -gt 30 ] || fail "fov $fov: centre pixel $* is not the orb"
    done
}
