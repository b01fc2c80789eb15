import Foundation
import GalleryModel
import GallerySimulation
import GalleryTestSupport

/// One thread of the chaos schedule: issues random commands (add, move, delete, update, drag
/// with `--copy` or `--move`, cancel, new-gallery) on random running nodes until the deadline,
/// and records in the ledger what each acknowledged command did.
struct ChaosWorker {
    let index: Int
    let cluster: ChaosCluster
    let ledger: ChaosLedger
    let options: ChaosOptions
    var random: SeededGenerator
    /// The last listing seen, from a random node: what commands pick their items and galleries from.
    private var view: ChaosListing?
    private var made = 0

    init(index: Int, cluster: ChaosCluster, ledger: ChaosLedger, options: ChaosOptions) {
        self.index = index
        self.cluster = cluster
        self.ledger = ledger
        self.options = options
        self.random = SeededGenerator(seed: options.seed &* 1_000_003 &+ UInt64(index) &+ 1)
    }

    /// Issues commands until `deadline`.
    mutating func run(until deadline: Date) {
        while Date() < deadline {
            let running = cluster.nodes.filter { $0.currentState == .running }
            guard let node = running.randomElement(using: &random) else {
                Thread.sleep(forTimeInterval: 0.1)
                continue
            }
            made += 1
            if view == nil || made % 12 == 0 {
                refresh(from: node)
                continue
            }
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<24: add(on: node)
            case 24..<38: move(on: node)
            case 38..<46: delete(on: node)
            case 46..<55: update(on: node)
            case 55..<92: drag(on: node)
            case 92..<96: cancel()
            default: newGallery(on: node)
            }
        }
    }

    // MARK: Commands

    private mutating func refresh(from node: ChaosNode) {
        let result = cluster.gallery(node, ["list", "--json"])
        if result.ok, let listing = ChaosListing(json: result.stdout) { view = listing }
    }

    private mutating func add(on node: ChaosNode) {
        let gallery = Int.random(in: 0..<10, using: &random) < 6 ? node.name : randomGallery() ?? node.name
        var arguments = ["add"]
        var file: URL?
        if Int.random(in: 0..<10, using: &random) == 0 {
            arguments.append("https://example.org/w\(index)-\(made).jpg")
        } else {
            let url = cluster.scratch.appendingPathComponent("w\(index)-\(made).png")
            guard writeImage(to: url, bytes: imageSize()) else { return }
            arguments.append(url.path)
            file = url
        }
        arguments += ["--to", gallery]
        if Bool.random(using: &random) { arguments += ["--at", "0"] }
        let result = cluster.gallery(node, arguments)
        if let file { try? FileManager.default.removeItem(at: file) }
        guard result.ok else { return finish(result) }
        let ids = lines(result.stdout)
        let title = file?.lastPathComponent ?? "w\(index)-\(made).jpg"
        ledger.update { record in
            for id in ids {
                record.created[id] = "add on \(node.name)"
                record.titles[id, default: []].insert(title)
                record.pool.append(id)
            }
        }
        finish(result)
    }

    private mutating func move(on node: ChaosNode) {
        guard let item = randomItem(), let gallery = randomGallery(), let view else { return }
        let count = view.count(in: gallery) - (item.gallery == gallery ? 1 : 0)
        let at = Int.random(in: 0...max(0, count), using: &random)
        finish(cluster.gallery(node, ["move", item.id, "--at", "\(at)", "--to", gallery]))
    }

    private mutating func delete(on node: ChaosNode) {
        var ids: [String] = []
        for _ in 0..<Int.random(in: 1...2, using: &random) {
            if let item = randomItem(), !ids.contains(item.id) { ids.append(item.id) }
        }
        guard !ids.isEmpty else { return }
        ledger.mayRemove(ids)
        let result = cluster.gallery(node, ["delete"] + ids)
        if result.ok {
            ledger.update { record in
                record.deleted.formUnion(ids)
                record.pool.removeAll { ids.contains($0) }
            }
        }
        finish(result)
    }

    private mutating func update(on node: ChaosNode) {
        guard let item = randomItem() else { return }
        let title = "t\(index)-\(made)"
        // Any title asked may win (the greater op ID does), acknowledged or not; recorded before
        // the command, and for any item (its add may be acknowledged after this update is made).
        _ = ledger.update { record in record.titles[item.id, default: []].insert(title) }
        finish(cluster.gallery(node, ["update", item.id, "--title", title]))
    }

    private mutating func drag(on node: ChaosNode) {
        guard let gallery = randomGallery() else { return }
        var sources: [String] = []
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            if let item = randomItem(readyOnly: true), !sources.contains(item.id) { sources.append(item.id) }
        }
        guard !sources.isEmpty else { return }
        let move = Bool.random(using: &random), wait = Bool.random(using: &random)
        var arguments = ["drag"] + sources + ["--to", gallery]
        if Int.random(in: 0..<10, using: &random) < 3, let view {
            arguments += ["--at", "\(Int.random(in: 0...view.count(in: gallery), using: &random))"]
        }
        arguments += [move ? "--move" : "--copy", "--timeout", "\(Int(options.dragTimeout.rounded(.up)))"]
        if wait { arguments.append("--wait") }
        if move { ledger.mayRemove(sources) }
        let result = cluster.gallery(node, arguments, timeout: wait ? options.dragTimeout + 40 : 30)
        record(drag: result, on: node, sources: sources, move: move, wait: wait)
        finish(result)
    }

    private mutating func cancel() {
        guard let (name, transfer) = ledger.update({ record -> (String, String)? in
            guard !record.pending.isEmpty else { return nil }
            return record.pending.remove(at: Int.random(in: 0..<record.pending.count, using: &random))
        }), let node = cluster.node(name), node.currentState == .running else { return }
        ledger.mayRemove([transfer])
        let result = cluster.gallery(node, ["cancel", transfer])
        if result.ok { ledger.update { record in _ = record.cancelled.insert(transfer) } }
        finish(result)
    }

    private mutating func newGallery(on node: ChaosNode) {
        let name = "g\(Int.random(in: 1...4, using: &random))"
        let result = cluster.gallery(node, ["new-gallery", name])
        if result.ok { ledger.update { record in _ = record.galleries.insert(name) } }
        finish(result)
    }

    // MARK: Helpers

    /// Counts the command, and an acknowledgement.
    private func finish(_ result: GalleryProcess.Result) {
        ledger.update { record in
            record.counts.issued += 1
            if result.ok { record.counts.acknowledged += 1 }
        }
    }

    /// Records what a drag's output says it did. The drop lines are trusted when the command
    /// exited 0, or when it waited and printed an outcome for every transfer (exit 1: one failed).
    private func record(drag result: GalleryProcess.Result, on node: ChaosNode, sources: [String], move: Bool, wait: Bool) {
        let output = lines(result.stdout)
        var drops: [ChaosLedger.Drop] = []
        var outcomes: [String: String] = [:]
        for line in output {
            let words = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
            if words.count == 7, words[1] == "->", words[5] == "transfer" {
                drops.append(ChaosLedger.Drop(node: node.name, source: words[0], item: words[4], action: words[3], move: move))
            } else if words.count >= 3, words[0] == "transfer" {
                outcomes[words[1]] = words[2...].joined(separator: " ")
            }
        }
        let transfers = drops.filter { $0.action == "placeholder" }.map(\.item)
        let trusted = drops.count == sources.count
            && (result.ok || (wait && transfers.allSatisfy { outcomes[$0] != nil }))
        guard trusted else { return }
        ledger.update { record in
            record.counts.drags += 1
            record.counts.transfers += transfers.count
            for var drop in drops {
                drop.outcome = outcomes[drop.item]
                if let outcome = drop.outcome, outcome != "committed" {
                    record.counts.transfersFailed += 1
                    if outcome.hasPrefix("failed: timed out") { record.counts.transfersTimedOut += 1 }
                }
                switch drop.action {
                case "copied", "committed": record.created[drop.item] = "\(drop.action) by a drag on \(node.name)"
                case "placeholder" where drop.outcome == "committed": record.created[drop.item] = "committed by a drag on \(node.name)"
                default: break
                }
                if drop.action != "moved" { record.pool.append(drop.item) }
                if drop.action == "placeholder" && !wait { record.pending.append((node.name, drop.item)) }
                record.drops.append(drop)
            }
        }
    }

    /// A random known gallery.
    private mutating func randomGallery() -> String? {
        view?.galleries.randomElement(using: &random)
    }

    /// A random item of the last listing, or of the items recorded since.
    private mutating func randomItem(readyOnly: Bool = false) -> ChaosListing.Item? {
        let listed = (view?.items ?? []).filter { !readyOnly || $0.state == "ready" }
        if Int.random(in: 0..<4, using: &random) == 0,
           let id = ledger.update({ record in record.pool.suffix(20).randomElement(using: &random) }) {
            return listed.first { $0.id == id } ?? ChaosListing.Item(id: id, gallery: "", index: 0, state: "ready")
        }
        return listed.randomElement(using: &random)
    }

    /// An image size from 1 KiB up to the largest: mostly small, some large.
    private mutating func imageSize() -> Int {
        let largest = options.largestBlob
        switch Int.random(in: 0..<20, using: &random) {
        case 0..<12: return Int.random(in: 1_024...min(largest, 32 << 10), using: &random)
        case 12..<18: return Int.random(in: min(largest, 32 << 10)...min(largest, 1 << 20), using: &random)
        default: return Int.random(in: min(largest, 1 << 20)...largest, using: &random)
        }
    }

    /// Writes a PNG: a valid signature and IHDR, then random bytes up to `bytes`.
    private mutating func writeImage(to url: URL, bytes: Int) -> Bool {
        var data: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]
        for value in [UInt32.random(in: 16...4_000, using: &random), UInt32.random(in: 16...4_000, using: &random)] {
            data += withUnsafeBytes(of: value.bigEndian, Array.init)
        }
        data += [8, 2, 0, 0, 0, 0, 0, 0, 0]
        // Random words written in place: fast enough in a debug build too.
        var words = [UInt64](repeating: 0, count: max(0, bytes - data.count + 7) / 8)
        words.withUnsafeMutableBufferPointer { buffer in
            for index in buffer.indices { buffer[index] = random.next() }
        }
        var file = Data(data)
        words.withUnsafeBytes { file.append(contentsOf: $0.prefix(max(0, bytes - data.count))) }
        return FileManager.default.createFile(atPath: url.path, contents: file)
    }

    private func lines(_ text: String) -> [String] {
        text.split(separator: "\n").map(String.init)
    }
}
