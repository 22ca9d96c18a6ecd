"""Load wobble's OBJ and PC2 the way a Blender user would, and print the
evaluated vertex positions at some frames.

    blender -b --factory-startup --python-exit-code 1 -P mesh_cache.py -- \
        MESH.obj MESH.pc2 OUT.txt FRAME...

The OBJ is imported without axis conversion (forward Y, up Z), a Mesh Cache
modifier reads the PC2 (frame mode, start 0, no interpolation), and for each
FRAME the evaluated mesh's vertices are written to OUT.txt as
"FRAME INDEX X Y Z" lines.
"""
import sys

import bpy

args = sys.argv[sys.argv.index("--") + 1:]
obj_path, pc2_path, out_path = args[0], args[1], args[2]
frames = [int(a) for a in args[3:]]

bpy.ops.wm.read_factory_settings(use_empty=True)
if hasattr(bpy.ops.wm, "obj_import"):
    bpy.ops.wm.obj_import(filepath=obj_path, forward_axis="Y", up_axis="Z")
else:
    bpy.ops.import_scene.obj(filepath=obj_path, axis_forward="Y", axis_up="Z",
                             split_mode="OFF")
objects = [o for o in bpy.context.scene.objects if o.type == "MESH"]
if len(objects) != 1:
    raise SystemExit("expected one mesh object, got %d" % len(objects))
ob = objects[0]

mod = ob.modifiers.new("wobble", "MESH_CACHE")
mod.cache_format = "PC2"
mod.filepath = pc2_path
mod.time_mode = "FRAME"
mod.play_mode = "SCENE"
mod.frame_start = 0.0
mod.frame_scale = 1.0
mod.interpolation = "NONE"
mod.forward_axis = "POS_Y"
mod.up_axis = "POS_Z"

with open(out_path, "w") as out:
    for f in frames:
        bpy.context.scene.frame_set(f)
        depsgraph = bpy.context.evaluated_depsgraph_get()
        ev = ob.evaluated_get(depsgraph)
        mesh = ev.to_mesh()
        if len(mesh.vertices) != len(ob.data.vertices):
            raise SystemExit("vertex count changed")
        for v in mesh.vertices:
            out.write("%d %d %.9g %.9g %.9g\n" % (f, v.index, v.co.x, v.co.y, v.co.z))
        ev.to_mesh_clear()
print("wobble mesh cache: %d vertices, frames %s" % (len(ob.data.vertices), frames))
