// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation

/// The `data-milli` figures of the rows of a page's report table, by field, read with a plain
/// scan of the markup the page writes.
public struct PageCells {
    public let rows: [[String: String]]

    public init(_ page: String) {
        guard let table = page.range(of: "<table class=\"report-table\""),
            let end = page.range(of: "</table>", range: table.upperBound..<page.endIndex)
        else {
            rows = []
            return
        }
        let body = page[table.upperBound..<end.lowerBound]
        rows = body.components(separatedBy: "<tr>").dropFirst(2).map { row in
            var cells: [String: String] = [:]
            for cell in row.components(separatedBy: "data-field=\"").dropFirst() {
                let field = String(cell.prefix { $0 != "\"" })
                if let milli = cell.range(of: "data-milli=\"") {
                    cells[field] = String(cell[milli.upperBound...].prefix { $0 != "\"" })
                }
            }
            return cells
        }
    }
}
