# Robustness: what a hostile user (or scripts/fuzz-scenes.py) feeds wobble.
# The contract (SPEC section 6): bad input is a message naming the file and
# the place (scene errors as file:line:col with the line and a caret), exit
# 2, no output file; never a crash, a hang or a partial output.

# first_line_is TEXT: the first line of ./err is exactly TEXT.
first_line_is() {
    _first=$(sed -n 1p err)
    [ "$_first" = "$1" ] || fail "first line of stderr: '$_first', expected '$1'"
}

# first_line_starts TEXT: the first line of ./err starts with TEXT.
first_line_starts() {
    _first=$(sed -n 1p err)
    case "$_first" in
    "$1"*) ;;
    *) fail "first line of stderr: '$_first', expected it to start with '$1'" ;;
    esac
}

# Bytes that are not UTF-8 (or a control character) are a YAML reader
# error: libyaml gives only a byte offset, and the message was
# "bad.yaml: error: ..." with no line, column or caret.
test_robust_invalid_utf8_has_a_place() {
    photo_scene s.yaml 0.2
    printf 'wobble: 1\nkind: photo\nphoto: {image: "ph\377to.png"}\n' > bad.yaml
    expect_exit 2 "$WOBBLE" info bad.yaml
    first_line_is "bad.yaml:3:19: error: invalid YAML: invalid leading UTF-8 octet at byte 40"
    [ "$(sed -n 3p err)" = "                    ^" ] || fail "caret: '$(sed -n 3p err)'"
    expect_render_error 3 19 "invalid YAML: invalid leading UTF-8 octet at byte 40"
    # A control character, after a two-byte character: the column counts
    # characters, as libyaml's own marks do.
    printf 'wobble: 1\nkind: photo\n# \303\251\033\nphoto: {image: photo.png}\n' > bad.yaml
    expect_render_error 3 4 "invalid YAML: control characters are not allowed at byte 26"
    # In a --set value the column is within the option.
    expect_exit 2 "$WOBBLE" info s.yaml --set "photo.image=\"a$(printf '\377')\""
    first_line_is "--set:1:15: error: invalid YAML: invalid leading UTF-8 octet at byte 2"
}

# A file cut short (an unclosed quote or bracket): libyaml puts the error on
# the line after the last one, where there is no text, so no caret showed.
# The place is now just past the last character.
test_robust_truncated_scene_points_at_its_end() {
    printf 'wobble: 1\nkind: photo\nphoto: {image: photo.png, grid: [1\n\n' > bad.yaml
    expect_exit 2 "$WOBBLE" info bad.yaml
    first_line_is "bad.yaml:3:35: error: invalid YAML: did not find expected ',' or ']' while parsing a flow sequence that started at line 3, column 33"
    [ "$(sed -n 2p err)" = "  photo: {image: photo.png, grid: [1" ] || fail "source: '$(sed -n 2p err)'"
    [ "$(sed -n 3p err)" = "                                    ^" ] || fail "caret: '$(sed -n 3p err)'"
    printf 'wobble: 1\nkind: photo\nphoto:\n  image: "photo.png' > bad.yaml
    expect_render_error 4 20 "invalid YAML: found unexpected end of stream while scanning a quoted scalar that started at line 4, column 10"
    expect_grep '                   ^' err
}

# output.fps takes any positive number up to 1000, but the encoders keep the
# rate in 1/1000 steps: below 0.001 it became 0/1000 and the render failed
# when the output opened, with "wobble: error: frame rate 0/1 is not
# positive" and no place.  --fps has the floor 0.001 too.
test_robust_fps_below_the_floor_is_a_scene_error() {
    photo_scene s.yaml 0.2
    sed 's/fps: 10/fps: 5e-324/' s.yaml > bad.yaml
    expect_exit 2 "$WOBBLE" info bad.yaml
    first_line_is "bad.yaml:3:38: error: 'output.fps' must be at least 0.001, found 4.94066e-324"
    expect_render_error 3 38 "'output.fps' must be at least 0.001, found 4.94066e-324"
    expect_exit 2 "$WOBBLE" render s.yaml --set output.fps=0.0004 -o bad.mkv
    first_line_is "--set:1:12: error: 'output.fps' must be at least 0.001, found 0.0004"
    [ ! -e bad.mkv ] || fail "output created"
    # The floor itself renders: one frame covers the 0.2 s.
    expect_exit 0 "$WOBBLE" render s.yaml --set output.fps=0.001 -o ok.y4m --json
    expect_grep '"frames": 1,' out
}

# Frame sizes --size allows but an encoder refuses: libwebp takes no side
# over 16383, FFmpeg no picture with (w+128)*(h+128) >= 2^28.  They were found
# only when the encoder opened or took the first frame, after the simulation,
# and reported as a write error (exit 3).  Now a usage error before anything
# runs.
test_robust_frame_too_large_for_the_encoder() {
    photo_scene s.yaml 0.2
    expect_exit 2 "$WOBBLE" render s.yaml --size 16384x16 -o a.webp
    first_line_is "wobble: error: 16384x16 is too large a frame for 'libwebp_anim' (WebP takes at most 16383x16383)"
    [ ! -e a.webp ] || fail "a.webp left behind"
    expect_exit 2 "$WOBBLE" render s.yaml --size 16384x16384 -o a.y4m
    expect_grep "16384x16384 is too large a frame for 'y4m'" err
    expect_exit 2 "$WOBBLE" render s.yaml --set output.width=16384 --set output.height=16384 -o a.mp4 --dry-run
    expect_grep "16384x16384 is too large a frame for 'libx264'" err
    [ ! -e a.y4m ] && [ ! -e a.mp4 ] || fail "output left behind"
    # The largest sizes still render.
    expect_exit 0 "$WOBBLE" render s.yaml --size 16383x8 --frames 0:1 -o ok.webp
    expect_exit 0 "$WOBBLE" render s.yaml --size 16256x16255 -o ok.y4m --dry-run
}

# A scene that is not a file of text: /dev/zero or /dev/urandom was read
# until memory ran out (exit 3 "Cannot allocate memory", or the OOM killer),
# a folder was a read error (exit 3).  Now reading stops at the first NUL
# byte and at 16 MiB, and all of them are bad input (exit 2).
test_robust_scene_that_is_not_a_text_file() {
    expect_exit 2 "$WOBBLE" info /dev/zero
    first_line_is "wobble: error: scene '/dev/zero' is not a text file (it contains NUL bytes)"
    expect_exit 2 "$WOBBLE" render /dev/urandom -o a.mkv
    first_line_is "wobble: error: scene '/dev/urandom' is not a text file (it contains NUL bytes)"
    [ ! -e a.mkv ] || fail "output left behind"
    mkdir d
    expect_exit 2 "$WOBBLE" info d
    first_line_is "wobble: error: cannot read scene 'd': Is a directory"
    head -c 16777216 /dev/zero | tr '\0' '#' > big.yaml
    expect_exit 2 "$WOBBLE" render big.yaml -o a.mkv
    first_line_is "wobble: error: scene 'big.yaml' is not a scene file (16 MiB or more)"
    [ ! -e a.mkv ] || fail "output left behind"
    yes '# a comment' | expect_exit 2 "$WOBBLE" info -
    first_line_is "wobble: error: scene '-' is not a scene file (16 MiB or more)"
    # One byte less is read (and is a comment only).
    head -c 16777215 /dev/zero | tr '\0' '#' > big.yaml
    expect_exit 2 "$WOBBLE" info big.yaml
    first_line_is "big.yaml:1:1: error: empty scene: expected a mapping that starts with 'wobble: 1'"
}

# A value quoted the wrong way (a block scalar, or a quoted string with
# escapes) was quoted in the message as is: its line breaks split the
# "file:line:col: error:" line, the caret landed under the wrong text and an
# escape sequence went to the terminal.  They are escaped now.
test_robust_message_quotes_a_multiline_value_on_one_line() {
    printf 'wobble: 1\nkind: photo\noutput: |\n  width: 64\n  height: 48\nphoto: {image: a.png}\n' > bad.yaml
    expect_exit 2 "$WOBBLE" info bad.yaml
    first_line_is "bad.yaml:3:9: error: 'output' expects a mapping, found the string \"width: 64\\nheight: 48\\n\""
    [ "$(sed -n 2p err)" = "  output: |" ] || fail "source line: '$(sed -n 2p err)'"
    [ "$(sed -n 3p err)" = "          ^" ] || fail "caret: '$(sed -n 3p err)'"
    [ "$(wc -l < err)" = 3 ] || fail "$(cat err)"
    printf 'wobble: 1\nkind: photo\nphoto: "a\\tb\\x1b[31mred"\n' > bad.yaml
    expect_render_error 3 8 "'photo' expects a mapping, found the string \"a\\tb\\x1b[31mred\""
}

# photo.image and photo.mask are decoded by the run: a missing or corrupt
# picture was "wobble: error: cannot read image 'x'", with no word of where
# the scene names it.  It is an error at the key now, as jiggle.weights is.
test_robust_unreadable_picture_names_the_key() {
    photo_scene s.yaml 0.2
    printf 'not a picture' > bad.png
    sed 's/image: photo.png/image: bad.png/' s.yaml > bad.yaml
    expect_exit 2 "$WOBBLE" render bad.yaml -o a.mkv
    first_line_starts "bad.yaml:4:16: error: 'photo.image': cannot read image 'bad.png': "
    [ "$(sed -n 2p err)" = "  photo: {image: bad.png, grid: 32, preset: jelly}" ] || fail "source: '$(sed -n 2p err)'"
    [ "$(sed -n 3p err)" = "                 ^" ] || fail "caret: '$(sed -n 3p err)'"
    sed 's/image: photo.png/image: nope.png/' s.yaml > bad.yaml
    expect_render_error 4 16 "'photo.image': cannot read image 'nope.png': No such file or directory"
    sed 's/grid: 32/mask: bad.png/' s.yaml > bad.yaml
    expect_exit 2 "$WOBBLE" render bad.yaml -o a.mkv
    first_line_starts "bad.yaml:4:33: error: 'photo.mask': cannot read image 'bad.png': "
    # From a --set: the place in the option.
    expect_exit 2 "$WOBBLE" render s.yaml --set photo.mask=bad.png -o a.mkv
    first_line_starts "--set:1:12: error: 'photo.mask': cannot read image 'bad.png': "
    [ ! -e a.mkv ] || fail "output created"
}

# A weight map that passes the load-time check (a PNG signature; the pixel
# limit raised past its stated size) but cannot
# be decoded when the run opens it is an error at jiggle.weights' place too,
# in the scene file (2d) or in the --set (3d); it had line and column 0.
test_robust_undecodable_weight_map_names_the_key() {
    "$WOBBLE" weights export orb -o w.png
    python3 - <<'PY'
import struct, zlib
d = bytearray(open('w.png', 'rb').read())
d[16:24] = struct.pack('>II', 100000, 100000)
d[29:33] = struct.pack('>I', zlib.crc32(bytes(d[12:29])) & 0xffffffff)
open('huge.png', 'wb').write(d)
PY
    expect_exit 2 "$WOBBLE" render "$ROOT/examples/jiggle-orb.yaml" --set jiggle.weights=huge.png -o a.mkv --max-pixels 10000000000
    first_line_starts "--set:1:16: error: 'jiggle.weights': cannot read image 'huge.png': "
    sed 's/^jiggle:$/jiggle:\n  weights: huge.png/' "$ROOT/examples/jiggle-2d-disc.yaml" > bad.yaml
    line=$(grep -n '^  weights: huge.png' bad.yaml | cut -d: -f1)
    expect_exit 2 "$WOBBLE" render bad.yaml -o a.mkv --max-pixels 10000000000
    first_line_starts "bad.yaml:$line:12: error: 'jiggle.weights': cannot read image 'huge.png': "
    [ "$(sed -n 3p err)" = "             ^" ] || fail "caret: '$(sed -n 3p err)'"
    [ ! -e a.mkv ] || fail "output created"
}

# The end-of-input place counts characters as libyaml does: a scene with a
# two-byte character and an unclosed quote still points past its last one.
test_robust_truncated_scene_with_utf8_points_at_its_end() {
    printf 'wobble: 1\n# \303\251t\303\251\nkind: photo\nphoto: {image: "a.png\n' > bad.yaml
    expect_render_error 4 22 "invalid YAML: found unexpected end of stream while scanning a quoted scalar that started at line 4, column 16"
}

# Columns count characters (libyaml's marks do) and the caret line keeps
# the source's tabs, but it looked for them by byte: after a non-ASCII
# character the tab was copied at the wrong place and the caret stood off.
test_robust_caret_after_utf8_and_a_tab() {
    printf 'wobble: 1\nkind: photo\nphoto: {image: "\303\251t\303\251.png",\tgrid: 0}\n' > bad.yaml
    expect_render_error 3 33 "'photo.grid' must be in [1, 2048], found 0"
    [ "$(sed -n 3p err)" = "$(printf '%27s\t      ^' '')" ] || fail "caret: '$(sed -n 3p err)'"
}

# An empty path is a usage error (exit 2), not a failed write (exit 3) or a
# missing golden folder (exit 1).
test_robust_empty_paths_are_usage_errors() {
    expect_exit 2 "$WOBBLE" testcard -o ""
    expect_grep "-o: empty file name" err
    expect_exit 2 "$WOBBLE" weights export orb -o ""
    expect_grep "-o: empty file name" err
    expect_exit 2 "$WOBBLE" check "$ROOT/examples/photo-grab.yaml" --golden ""
    expect_grep "--golden: empty folder name" err
}

# Lines end where libyaml ends them (CR, CR LF, LF, NEL, LS, PS), so a scene
# with old-Mac or Unicode line breaks shows the right line under its
# file:line:col: both for errors found while loading and for ones found when
# the run opens a file (the line is then read back from the scene).
test_robust_source_line_with_cr_and_unicode_breaks() {
    printf 'wobble: 1\rkind: photo\rphoto: {image: photo.png, grid: 0}\r' > bad.yaml
    expect_exit 2 "$WOBBLE" info bad.yaml
    first_line_starts "bad.yaml:3:33: error: 'photo.grid' must be in [1, 2048], found 0"
    [ "$(sed -n 2p err)" = "  photo: {image: photo.png, grid: 0}" ] || fail "source: '$(sed -n 2p err)'"
    printf 'wobble: 1\nkind: photo\342\200\250photo: {image: nope.png}\n' > bad.yaml
    expect_exit 2 "$WOBBLE" render bad.yaml -o a.mkv
    first_line_starts "bad.yaml:3:16: error: 'photo.image': cannot read image 'nope.png'"
    [ "$(sed -n 2p err)" = "  photo: {image: nope.png}" ] || fail "source: '$(sed -n 2p err)'"
    [ "$(sed -n 3p err)" = "                 ^" ] || fail "caret: '$(sed -n 3p err)'"
    # A control character libyaml refuses (it gives a byte offset): the
    # place is counted over the same line breaks, and the line shows the
    # character as '?', not raw bytes sent to the terminal.
    printf 'wobble: 1\rkind: photo\rphoto: {image: "a\033[2Jb.png"}\r' > bad.yaml
    expect_exit 2 "$WOBBLE" info bad.yaml
    first_line_starts "bad.yaml:3:18: error: invalid YAML: control characters are not allowed"
    [ "$(sed -n 2p err)" = '  photo: {image: "a?[2Jb.png"}' ] || fail "source: '$(sed -n 2p err)'"
}

# --fps and --duration take what their own check takes (strtod's forms,
# 0x10 = 16) and hand the scene the number, not the text: the text came back
# refused "at --set output.fps" though no --set was given.
test_robust_fps_option_is_applied_as_parsed() {
    photo_scene s.yaml 0.3
    expect_exit 0 "$WOBBLE" render s.yaml --fps 0x10 --duration 0x1p-2 -o a.mkv --json -q
    expect_grep '"fps": 16,' out
    expect_grep '"frames": 4,' out
}
