# Seamless loops (output.loop) and ping-pong (output.pingpong).

# json_num KEY FILE: the first number after "KEY": in FILE.
json_num() {
    sed -n "s/.*\"$1\": \([-0-9.e+]*\).*/\1/p" "$2" | head -n 1
}

# The seam error of the walker and orb loops, as printed on stderr and in
# --json, is under the 1 % of the motion's amplitude the manual states
# (and the period, frame count and pre-roll are the loop's).
test_loop_seam_of_walker_and_orb_under_the_limit() {
    for ex in jiggle-orb-loop jiggle-walker-loop; do
        expect_exit 0 "$WOBBLE" render "$ROOT/examples/$ex.yaml" -o x.mkv --size 160x90 \
            --dry-run --json
        expect_grep "wobble: loop: period" err
        expect_grep '"settled": true' out
        line=$(grep "seam error" err)
        pct=$(echo "$line" | sed -n 's/.*seam error [^,]*, \([0-9.e+-]*\) % of.*/\1/p')
        [ -n "$pct" ] || fail "$ex: no seam error in '$line'"
        awk -v p="$pct" 'BEGIN { exit !(p < 1.0) }' || fail "$ex: seam $pct % is over 1 %"
        share=$(json_num seam_share out)
        awk -v s="$share" 'BEGIN { exit !(s < 0.01) }' || fail "$ex: seam_share $share"
        ! grep -q "warning" err || fail "$ex: warned: $(cat err)"
        pf=$(json_num period_frames out)
        [ "$(json_num end_frame out)" = "$pf" ] || fail "$ex: $pf frames a period, end $(json_num end_frame out)"
    done
}

# The frame after the last of a one-period loop (frame 54 of the same loop
# run for two periods) matches frame 0: no channel moves by more than 16
# levels of 255 (an edge shifted by under 1/16 px).  The frame before it,
# and one half a period on, do not: the comparison can fail.
test_loop_frame_after_last_matches_the_first() {
    ex="$ROOT/examples/jiggle-orb-loop.yaml"
    expect_exit 0 "$WOBBLE" check "$ex" --golden g --update --frames 0:1 --size 160x90
    for f in 0027 0053 0054; do cp g/0000.png g/$f.png; done
    expect_exit 0 "$WOBBLE" check "$ex" --set output.loop_periods=2 --golden g --frames 54:55 \
        --size 160x90 --tolerance 16
    expect_exit 1 "$WOBBLE" check "$ex" --set output.loop_periods=2 --golden g --frames 53:54 \
        --size 160x90 --tolerance 16
    expect_exit 1 "$WOBBLE" check "$ex" --golden g --frames 27:28 --size 160x90 --tolerance 16
}

# A range of a loop is the same frames as the whole loop has there, and
# info prints the loop's pre-roll and length.
test_loop_chunks_and_info() {
    cat > s.yaml <<YAML
wobble: 1
kind: jiggle
output: {width: 64, height: 48, fps: 10, loop: true}
jiggle: {view: 2d, shape: disc, drive: {orbit: {period: 1.5}}}
YAML
    render_md5 all s.yaml
    [ "$(grep -vc '^#' all.md5)" = 15 ] || fail "a 1.5 s period at 10 fps is 15 frames"
    render_md5 part s.yaml --frames 6:11
    sed -n '/^[0-9]/p' all.md5 | awk -F, '{print $6}' | sed -n 7,11p > a
    sed -n '/^[0-9]/p' part.md5 | awk -F, '{print $6}' > b
    cmp -s a b || fail "frames 6..10 of the loop differ from the chunk"
    expect_exit 0 "$WOBBLE" info s.yaml
    expect_grep "duration: 1.5" out
    grep -q "preroll: [1-9]" out || fail "no loop pre-roll in info: $(grep preroll out)"
}

# What does not repeat is refused, by name and place, before any output.
test_loop_refuses_what_is_not_periodic() {
    expect_exit 2 "$WOBBLE" render "$ROOT/examples/jiggle-orb.yaml" --set output.loop=true -o x.mkv
    expect_grep "jiggle-orb.yaml:29:5: error: output.loop: the 'shake' event at 4 s happens once" err
    expect_exit 2 "$WOBBLE" render "$ROOT/examples/photo-grab.yaml" --set output.loop=true -o x.mkv
    expect_grep "'grab' event" err
    expect_grep "--until-settled" err
    expect_exit 2 "$WOBBLE" render "$ROOT/examples/rope-pendulums.yaml" --set output.loop=true -o x.mkv
    expect_grep "nothing in this scene repeats" err
    expect_exit 2 "$WOBBLE" render "$ROOT/examples/jiggle-walker.yaml" --set output.loop=true -o x.mkv
    expect_grep "have no common multiple within 600 s" err
    [ ! -e x.mkv ] || fail "output written"
}

pingpong_scene() {
    cat > pp.yaml <<YAML
wobble: 1
kind: jiggle
output: {width: 64, height: 48, fps: 10, duration: 0.6, pingpong: true}
jiggle: {view: 2d, shape: disc, drive: {orbit: {period: 1}}}
YAML
}

# frames_md5 FILE: the MD5 of each decoded frame, one a line.
frames_md5() {
    ffmpeg -v error -i "$1" -f framemd5 - | sed -n '/^[0-9]/p' | awk -F, '{print $6}'
}

# expect_palindrome FILE: 10 decoded frames, frame i (1-based) equal to
# frame 12 - i for i = 2..5, the turn frames 1 and 6 not repeated.
expect_palindrome() {
    frames_md5 "$1" > g
    [ "$(wc -l < g)" = 10 ] || fail "$1: $(wc -l < g) frames"
    for i in 2 3 4 5; do
        j=$((12 - i))
        [ "$(sed -n ${i}p g)" = "$(sed -n ${j}p g)" ] || fail "$1: frame $i is not frame $j"
    done
    [ "$(sed -n 1p g)" != "$(sed -n 10p g)" ] || fail "$1 repeats the first frame"
    [ "$(sed -n 6p g)" != "$(sed -n 7p g)" ] || fail "$1 repeats the turn frame"
}

# Ping-pong plays 0..5 then 4..1: decoded, a lossless video is the plain
# render's frames in that order; a GIF and an APNG (a GIF's palette is the
# whole clip's) mirror themselves; a GIF, a WebP and an MP4 last 10 frames
# (1 s); a PNG sequence numbers the frames back on.
test_pingpong_frame_order_decoded() {
    pingpong_scene
    expect_exit 0 "$WOBBLE" render pp.yaml --set output.pingpong=false -o fw.mkv
    frames_md5 fw.mkv > fw
    [ "$(wc -l < fw)" = 6 ] || fail "6 frames expected"
    { cat fw; sed -n '2,5p' fw | tac; } > want
    expect_exit 0 "$WOBBLE" render pp.yaml -o pp.mkv --json
    expect_grep '"output_frames": 10' out
    frames_md5 pp.mkv > got
    cmp -s want got || { paste want got; fail "mkv: ping-pong order wrong"; }
    for ext in gif apng; do
        expect_exit 0 "$WOBBLE" render pp.yaml -o pp.$ext
        expect_palindrome pp.$ext
    done
    [ "$(probe pp.gif duration)" = "1.000000" ] || fail "GIF lasts $(probe pp.gif duration) s"
    # WebP merges equal frames into longer ones: their durations add up
    expect_exit 0 "$WOBBLE" render pp.yaml -o pp.webp
    ms=$(webpmux -info pp.webp | awk '/^ *[0-9]+:/ {s += $7} END {print s}')
    [ "$ms" = 1000 ] || fail "WebP lasts $ms ms, not 1000"
    expect_exit 0 "$WOBBLE" render pp.yaml -o pp.mp4
    [ "$(count_frames pp.mp4)" = 10 ] || fail "mp4: $(count_frames pp.mp4) frames"
    d=$(probe pp.mp4 duration)
    [ "$d" = "1.000000" ] || fail "mp4 lasts $d s, not 1"
    expect_exit 0 "$WOBBLE" render pp.yaml -o 'seq_%02d.png'
    [ -e seq_09.png ] && [ ! -e seq_10.png ] || fail "PNG sequence: $(ls)"
    cmp -s seq_03.png seq_07.png || fail "PNG frame 7 is not frame 3"
}

# The GIF limit counts the frames back too: 6 frames of 64x48 fit in
# 25000 pixels, their ping-pong's 10 do not.
test_pingpong_counts_in_the_gif_limit() {
    pingpong_scene
    expect_exit 0 "$WOBBLE" render pp.yaml -o fw.gif --set output.pingpong=false \
        --max-gif-pixels 25000
    expect_exit 2 "$WOBBLE" render pp.yaml -o pp.gif --max-gif-pixels 25000
    expect_grep "10 frames of 64x48" err
}

# A keyed path that ends where it starts repeats under a loop (jiggle drive
# path, rope anchor path), its last key's time the period; one that does
# not is refused.
test_loop_closed_paths_repeat() {
    cat > cp.yaml <<YAML
wobble: 1
kind: jiggle
output: {width: 96, height: 54, fps: 20, loop: true}
jiggle:
  view: 2d
  shape: capsule
  drive:
    path:
      - {time: 0.5, to: [0.3, 0], ease: in-out}
      - {time: 1.0, to: [0, 0.2], ease: in-out}
      - {time: 1.5, to: [0, 0], ease: in-out}
YAML
    expect_exit 0 "$WOBBLE" render cp.yaml -o cp.mkv --dry-run --json
    expect_grep '"period": 1.5,' out
    expect_grep '"end_frame": 30,' out
    awk -v s="$(json_num seam_share out)" 'BEGIN { exit !(s < 0.01) }' || fail "jiggle seam"
    expect_exit 0 "$WOBBLE" render "$ROOT/examples/rope-swing-loop.yaml" -o r.mkv --dry-run --json
    expect_grep '"period": 2,' out
    expect_grep '"unit": "m"' out
    awk -v s="$(json_num seam_share out)" 'BEGIN { exit !(s < 0.01) }' || fail "rope seam"
    sed 's/to: \[0, 0\]/to: [0, 0.1]/' cp.yaml > open.yaml
    expect_exit 2 "$WOBBLE" render open.yaml -o o.mkv
    expect_grep "jiggle.drive.path moves once and holds its last key" err
}
