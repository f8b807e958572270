// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore

/// A plain-text table with columns padded to their widest cell; numbers right-aligned.
struct TextTable {
    let headers: [String]
    /// Indexes of right-aligned (numeric) columns.
    let rightAligned: Set<Int>
    private(set) var rows: [[String]] = []

    init(headers: [String], rightAligned: Set<Int> = []) {
        self.headers = headers
        self.rightAligned = rightAligned
    }

    /// Adds a row; its cells are escaped (`PrintableText`): they hold signed fields and
    /// catalog names, which may carry anything.
    mutating func add(_ row: [String]) { rows.append(row.map { PrintableText.escaped($0) }) }

    func render(indent: String = "") -> String {
        let all = [headers] + rows
        let widths = headers.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            let cells = row.enumerated().map { column, cell in
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                return rightAligned.contains(column) ? padding + cell : cell + padding
            }
            return indent + cells.joined(separator: "  ").trimmingTrailingSpaces()
        }.joined(separator: "\n") + "\n"
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var text = self
        while text.hasSuffix(" ") { text.removeLast() }
        return text
    }
}
