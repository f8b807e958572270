// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import TipLedgerTestSupport

/// `scripts/demo` keeps working against the binary as built, so the README's first steps
/// never rot.
@Suite struct DemoScriptTests {
    @Test func demoScriptRunsThePipelineToTheEnd() async throws {
        let demo = try await DemoRun.shared.outcome()
        let result = demo.result
        #expect(result.exited(0), "\(result.summary)")
        #expect(result.err.isEmpty, "\(result.err)")
        let output = result.out
        for expected in [
            "360 lines: 360 accepted, 0 rejected",
            "4 lines: 4 accepted, 0 rejected",
            "\"outcome\":\"duplicate\"",
            "refunded or revoked left out; --all lists them)",
            "com.example.tipjar.small (Small Tip)",
            "proceeds are an estimate at a 15% commission",
            "open consumption requests: 1",
            "368 stored payloads checked, 0 failed",
            "Done. Open the report page: file://\(demo.page)",
        ] {
            #expect(output.contains(expected), "the demo's output lacks '\(expected)'")
        }
        let header = output.split(separator: "\n").first { $0.hasPrefix("  product ") }
        for column in [
            "currency", "transactions", "units", "gross", "refunded", "revoked", "net", "proceeds (estimate)",
        ] {
            #expect(
                header?.contains(column) == true, "the report table has a \(column) column: \(header ?? "none")")
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: demo.temporaryDirectory)
        #expect(leftovers.isEmpty, "the demo removes its work folder: \(leftovers)")
        // The page it leaves behind shows the demo's tips.
        let page = try MarkupNode.parse(try String(contentsOfFile: demo.page, encoding: .utf8))
        #expect(page.all("figure", class: "series").compactMap { $0.attributes["data-currency"] } == ["USD", "EUR"])
        #expect(page.all("div", class: "card").count == 2)
    }
}
