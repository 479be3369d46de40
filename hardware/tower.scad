// Zilch Tower: tray, base with solenoid cradle, camera mast, camera mount and button panel.
//
// Every size is a parameter below (millimetres). Preview the whole tower:
//   openscad hardware/tower.scad
// Export one printable part as STL (part = tray | base | mast | arm | camera_mount | panel):
//   openscad -D 'part="tray"' -o tray.stl hardware/tower.scad
// or all of them:
//   for p in tray base mast arm camera_mount panel; do
//     openscad -D "part=\"$p\"" -o "$p.stl" hardware/tower.scad; done
// Print `mast_segments()` copies of the mast (echoed on export); the segments
// plug into each other, the lowest into the base and the arm onto the highest.

part = "all";

/* [Tray] */
tray_w = 240;        // inner floor width (x); matches TRAY_MM[0] in firmware/sim.py
tray_d = 180;        // inner floor depth (y); matches TRAY_MM[1]
wall_h = 40;         // wall height above the floor: dice must not jump out
wall_t = 3;          // wall thickness
floor_t = 3;         // floor thickness: thin enough to ring when struck
corner_r = 8;        // inner corner radius (dice do not jam in round corners)
strike_d = 24;       // boss under the floor where the plunger hits
strike_h = 3;

/* [Base and solenoid] */
base_t = 5;          // base plate thickness
foot_d = 14;         // post diameter; a rubber grommet sits on each post
foot_hole = 3.4;     // M3 through each post and tray tab
solenoid = [30, 16, 14];   // solenoid body: length (stands upright), width, depth; measure yours
plunger_rest = 4;    // plunger tip above the body at rest (pulled back by its spring)
plunger_gap = 2;     // plunger tip below the strike boss at rest
cradle_wall = 3;

/* [Mast and camera] */
lens_height = 262;   // lens above the tray floor (see hardware/README.md, camera geometry)
mast_w = 30;         // square mast tube, outside
mast_wall = 2.5;
mast_gap = 12;       // space between the tray's back wall and the mast
segment_max = 200;   // longest mast segment your printer can print standing up
spigot_h = 20;       // joint between segments
fit = 0.3;           // clearance of every plug-in joint

/* [Camera Module 3 mount] */
cam_board = [25, 24];      // camera board outline
cam_holes = [21, 12.5];    // mounting hole spacing (M2)
cam_hole_d = 2.2;
cam_hole_inset = 2;        // hole centre from the board's left and bottom edge
lens_from_bottom = 14.5;   // lens centre above the board's bottom edge: check your module
standoff = 3;              // keeps the parts on the board's back clear of the plate
lens_protrude = 6;         // lens front below the board's front face
plate_t = 3;               // camera plate thickness
ring_d = 100;              // ring light outer diameter (held by a lip around the lens)
ring_lip = 6;

/* [Button panel] */
panel = [140, 60, 3];      // 30 mm snap-in buttons fit panels up to about 3 mm
button_hole = 30;
led_hole = 5.2;

$fn = 64;

foot_gap = solenoid[0] + plunger_rest + plunger_gap + strike_h;  // base plate to tray underside
outer_w = tray_w + 2 * wall_t;
outer_d = tray_d + 2 * wall_t;
floor_z = base_t + foot_gap + floor_t;          // top of the tray floor
mast_x = outer_w / 2;
mast_y = outer_d + mast_gap + mast_w / 2;
arm_len = mast_y - outer_d / 2;                 // mast axis to the tray centre
cam_stack = standoff + 1 + lens_protrude;       // plate underside to the lens front
plate_z = floor_z + lens_height + cam_stack;    // camera plate underside
mast_total = plate_z + plate_t + mast_w;        // base to the top of the arm
arm_screws = [30, 45];                          // arm-to-plate screws, from the lens towards the mast

function mast_segments() = ceil((mast_total - base_t - mast_w) / segment_max);
function segment_len() = (mast_total - base_t - mast_w) / mast_segments();

module rounded_box(size, r) {
    linear_extrude(size[2])
        offset(r) offset(-r) square([size[0], size[1]]);
}

module tray() {
    tab = foot_d + 6;
    difference() {
        union() {
            rounded_box([outer_w, outer_d, floor_t + wall_h], corner_r + wall_t);
            for (x = [0, outer_w - tab], y = [0, outer_d - tab])
                translate([x, y, 0]) cube([tab, tab, floor_t]);
            translate([outer_w / 2, outer_d / 2, -strike_h]) cylinder(d = strike_d, h = strike_h);
        }
        translate([wall_t, wall_t, floor_t]) rounded_box([tray_w, tray_d, wall_h + 1], corner_r);
        for (p = foot_positions()) translate([p[0], p[1], -1]) cylinder(d = foot_hole, h = floor_t + 2);
    }
}

function foot_positions() =
    let(c = (foot_d + 6) / 2)
    [[c, c], [outer_w - c, c], [c, outer_d - c], [outer_w - c, outer_d - c]];

module base() {
    sock = mast_w + 2 * cradle_wall;
    difference() {
        union() {
            rounded_box([outer_w, mast_y + sock / 2, base_t], 6);
            for (p = foot_positions()) translate([p[0], p[1], 0]) cylinder(d = foot_d, h = base_t + foot_gap - 3);
            // solenoid cradle: the body stands plunger-up on the base under the strike boss
            translate([outer_w / 2, outer_d / 2, base_t])
                translate(-[solenoid[1] / 2 + cradle_wall, solenoid[2] / 2 + cradle_wall, 0])
                    cube([solenoid[1] + 2 * cradle_wall, solenoid[2] + 2 * cradle_wall, cradle_h()]);
            // mast socket
            translate([mast_x - sock / 2, mast_y - sock / 2, 0]) cube([sock, sock, base_t + spigot_h]);
        }
        for (p = foot_positions()) translate([p[0], p[1], -1]) cylinder(d = foot_hole, h = base_t + foot_gap);
        translate([outer_w / 2, outer_d / 2, base_t])
            translate(-[(solenoid[1] + fit) / 2, (solenoid[2] + fit) / 2, 0])
                cube([solenoid[1] + fit, solenoid[2] + fit, cradle_h() + 1]);
        // wire exit from the cradle
        translate([outer_w / 2 - 4, outer_d / 2, base_t]) cube([8, outer_d, 6]);
        translate([mast_x - (mast_w + fit) / 2, mast_y - (mast_w + fit) / 2, base_t])
            cube([mast_w + fit, mast_w + fit, spigot_h + 1]);
    }
}

// the cradle holds the lower part of the body; its top stays clear of the tray
function cradle_h() = solenoid[0] * 0.6;

module tube(len) {
    difference() {
        cube([mast_w, mast_w, len]);
        translate([mast_wall, mast_wall, -1]) cube([mast_w - 2 * mast_wall, mast_w - 2 * mast_wall, len + 2]);
    }
}

module mast() {
    // one segment: a tube with a spigot on top that plugs into the next segment or the arm
    inner = mast_w - 2 * mast_wall - fit;
    tube(segment_len());
    translate([mast_wall + fit / 2, mast_wall + fit / 2, segment_len() - 1])
        difference() {
            cube([inner, inner, spigot_h + 1]);
            translate([2, 2, -1]) cube([inner - 4, inner - 4, spigot_h + 3]);
        }
}

module arm() {
    // elbow over the mast's top spigot, then a horizontal tube out over the tray centre
    difference() {
        union() {
            cube([mast_w, mast_w, mast_w]);
            translate([0, -arm_len, 0]) cube([mast_w, arm_len, mast_w]);
        }
        translate([mast_wall, mast_wall, -1]) cube([mast_w - 2 * mast_wall, mast_w - 2 * mast_wall, spigot_h + 1]);
        // cable channel along the arm
        translate([mast_wall, -arm_len + mast_w, mast_wall])
            cube([mast_w - 2 * mast_wall, arm_len, mast_w - 2 * mast_wall]);
        // camera plate screws, on the arm's axis
        for (dy = arm_screws) translate([mast_w / 2, mast_w / 2 - arm_len + dy, -1]) cylinder(d = 3.2, h = mast_w + 2);
    }
}

module camera_mount() {
    // as installed: plate under the arm's tip, lens centre at the origin looking down (-z);
    // the camera board hangs under the plate on standoffs, the ring light sits in the lip
    board0 = [-cam_board[0] / 2, -lens_from_bottom];
    holes = [for (i = [0, 1], j = [0, 1])
        [board0[0] + cam_hole_inset + i * cam_holes[0], board0[1] + cam_hole_inset + j * cam_holes[1]]];
    difference() {
        union() {
            translate([-ring_d / 2 - 3, -ring_d / 2 - 3, 0]) rounded_box([ring_d + 6, ring_d + 6, plate_t], 10);
            translate([0, 0, -ring_lip]) difference() {
                cylinder(d = ring_d + 6, h = ring_lip);
                translate([0, 0, -1]) cylinder(d = ring_d + fit, h = ring_lip + 2);
            }
            for (h = holes) translate([h[0], h[1], -standoff]) cylinder(d = 5, h = standoff);
        }
        for (h = holes) translate([h[0], h[1], -standoff - 1]) cylinder(d = cam_hole_d, h = standoff + plate_t + 2);
        for (dy = arm_screws) translate([0, dy, -1]) cylinder(d = 3.2, h = plate_t + 2);
        // slot for the camera ribbon, beside the board's top edge
        translate([-9, board0[1] + cam_board[1] + 1, -1]) cube([18, 4, plate_t + 2]);
    }
}

module panel_part() {
    difference() {
        rounded_box(panel, 4);
        translate([panel[0] * 0.27, panel[1] / 2, -1]) cylinder(d = button_hole, h = panel[2] + 2);
        translate([panel[0] * 0.73, panel[1] / 2, -1]) cylinder(d = button_hole, h = panel[2] + 2);
        translate([panel[0] / 2, panel[1] * 0.82, -1]) cylinder(d = led_hole, h = panel[2] + 2);
        for (x = [6, panel[0] - 6], y = [6, panel[1] - 6]) translate([x, y, -1]) cylinder(d = 3.4, h = panel[2] + 2);
    }
}

module assembly() {
    color("#90a4ae") base();
    color("#2e7d32") translate([0, 0, base_t + foot_gap]) tray();
    for (k = [0 : mast_segments() - 1])
        color("#cfd8dc") translate([mast_x - mast_w / 2, mast_y - mast_w / 2, base_t + k * segment_len()]) mast();
    color("#b0bec5") translate([mast_x - mast_w / 2, mast_y - mast_w / 2, mast_total - mast_w]) arm();
    color("#eceff1") translate([outer_w / 2, outer_d / 2, plate_z]) camera_mount();
    color("#ffcc80") translate([outer_w / 2 - panel[0] / 2, -8, 0]) rotate([90, 0, 0]) panel_part();
}

echo(str("lens ", lens_height, " mm above the floor; mast ", mast_total, " mm; print ",
         mast_segments(), " mast segments of ", segment_len(), " mm"));

if (part == "all") assembly();
else if (part == "tray") translate([0, outer_d, floor_t + wall_h]) rotate([180, 0, 0]) tray();  // rim down
else if (part == "base") base();
else if (part == "mast") mast();
else if (part == "arm") translate([0, 0, mast_w]) rotate([0, 90, 0]) arm();
else if (part == "camera_mount") translate([0, 0, plate_t]) rotate([180, 0, 0]) camera_mount();
else if (part == "panel") panel_part();
else assert(false, str("unknown part \"", part, "\"; use all, tray, base, mast, arm, camera_mount or panel"));
