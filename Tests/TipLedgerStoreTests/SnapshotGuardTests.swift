// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing

@testable import TipLedgerStore

/// A ledger read as an immutable snapshot counts only while the file is the one first seen and
/// no process has it open to write.
@Suite struct SnapshotGuardTests {
    func withFile(_ body: (String) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("snapshot-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("l.sqlite").path
        try Data("ledger pages".utf8).write(to: URL(fileURLWithPath: file))
        try body(file)
    }

    @Test func anUnchangedFileIsRead() throws {
        try withFile { file in
            let snapshot = SnapshotGuard(file: file, path: "l.sqlite")
            let answer = try snapshot.reading { 42 }
            #expect(answer == 42)
        }
    }

    @Test func aWriterThatOpensTheFileMeanwhileVoidsTheRead() throws {
        try withFile { file in
            let snapshot = SnapshotGuard(file: file, path: "l.sqlite")
            #expect(throws: StoreError.self) {
                try snapshot.reading {
                    _ = FileManager.default.createFile(atPath: file + "-wal", contents: Data())
                    return 42
                }
            }
        }
    }

    @Test func aFileChangedMeanwhileVoidsTheReadAndWhatItThrew() throws {
        try withFile { file in
            let snapshot = SnapshotGuard(file: file, path: "l.sqlite")
            struct Corrupt: Error {}
            do {
                _ = try snapshot.reading { () throws -> Int in
                    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: file))
                    try handle.seekToEnd()
                    try handle.write(contentsOf: Data(" and more".utf8))
                    try handle.close()
                    throw Corrupt()
                }
                Issue.record("the read stood")
            } catch let error as StoreError {
                #expect(error.message == "the ledger l.sqlite changed while it was read: a process opened it to write")
            }
        }
    }
}
