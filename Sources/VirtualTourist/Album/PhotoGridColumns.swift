import GtkKit

extension PhotoGrid {
    /// GtkGridView keeps max-columns × 30 rows of cells bound, each holding its decoded photo,
    /// whatever the width shows: at most as many columns as fit keeps that to what scrolling
    /// back needs (12 columns in a 960 px window kept 360 photos bound, 8 keep 240). A narrow
    /// (phone) grid has at most 3 larger cells a row. The last matching breakpoint applies.
    static func columnsByWidth(_ scrolled: ScrolledWindow, grid: GridView) -> BreakpointBin {
        let bin = BreakpointBin(child: scrolled, minimumWidth: 2 * cellSize, minimumHeight: cellSize)
        bin.setExpand(horizontal: true, vertical: true)
        bin.addBreakpoint("max-width: 1000px", [(grid, "max-columns", .uint(8))])
        bin.addBreakpoint("max-width: 720px", [(grid, "max-columns", .uint(6))])
        bin.addBreakpoint("max-width: 480sp", [(grid, "max-columns", .uint(3))])
        return bin
    }
}
