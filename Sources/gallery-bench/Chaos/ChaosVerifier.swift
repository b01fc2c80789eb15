import Foundation
import GalleryCrypto
import GalleryModel

/// The end of a chaos run: heals the cluster (resumes paused nodes, restarts dead ones), waits,
/// bounded, until every node holds the same ops (version vectors), none buffered, shows the same
/// galleries, with no placeholder and no transfer in flight, then checks the end state against
/// what the ledger recorded.
struct ChaosVerifier {
    let cluster: ChaosCluster
    let options: ChaosOptions

    /// What healing ended with.
    struct Healed {
        /// Each node's last listing (nil: it did not answer).
        var listings: [String: ChaosListing?]
        /// Whether every node showed the same, with no placeholder and no transfer in flight.
        var quiet: Bool
        /// Seconds from the start of healing until quiet (or until giving up).
        var seconds: Double
        /// What kept the cluster from being quiet, when it was not.
        var reason: String
        /// Nodes that could not be brought back.
        var failures: [String]
    }

    /// Resumes and restarts nodes, then polls every 0.5 s until the cluster is quiet, for at most
    /// the drag timeout plus 60 s.
    func heal() -> Healed {
        let started = Date()
        var failures: [String] = []
        for node in cluster.nodes {
            switch node.currentState {
            case .paused: node.resume()
            case .dead:
                do { try node.start() } catch { failures.append("\(node.name) did not restart: \(error.localizedDescription)") }
            case .running: break
            }
        }
        let deadline = started.addingTimeInterval(options.dragTimeout + 60)
        var healed = Healed(listings: [:], quiet: false, seconds: 0, reason: "", failures: failures)
        repeat {
            (healed.listings, healed.reason) = poll()
            cluster.log("\(String(format: "%.3f", cluster.elapsed)) heal: \(healed.reason.isEmpty ? "quiet" : healed.reason)")
            if healed.reason.isEmpty {
                healed.quiet = true
                break
            }
            Thread.sleep(forTimeInterval: 0.5)
        } while Date() < deadline
        healed.seconds = Date().timeIntervalSince(started)
        return healed
    }

    /// Every node's listing, and why the cluster is not quiet yet (empty when it is).
    private func poll() -> ([String: ChaosListing?], String) {
        var listings: [String: ChaosListing?] = [:]
        var reasons: [String] = []
        var versions: Set<[String: Int]> = []
        for node in cluster.nodes {
            let result = cluster.gallery(node, ["list", "--json"])
            let listing = result.ok ? ChaosListing(json: result.stdout) : nil
            listings[node.name] = listing
            guard let listing else {
                reasons.append("\(node.name) did not list (\(result.status): \(result.stderr.prefix(200)))")
                continue
            }
            let placeholders = listing.items.filter { $0.state != "ready" }
            if !placeholders.isEmpty { reasons.append("\(node.name) lists \(placeholders.count) placeholders") }
            let status = cluster.gallery(node, ["status", "--json"])
            if let object = try? JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any],
               let transfers = object["transfers"] as? [Any] {
                if !transfers.isEmpty { reasons.append("\(node.name) has \(transfers.count) transfers in flight") }
                if let buffered = object["buffered"] as? Int, buffered > 0 {
                    reasons.append("\(node.name) holds \(buffered) ops waiting for dependencies")
                }
                versions.insert(object["version"] as? [String: Int] ?? [:])
            } else {
                reasons.append("\(node.name) did not answer status")
            }
        }
        let shown = Set(listings.values.compactMap { $0?.canonical })
        if shown.count > 1 { reasons.append("the nodes show \(shown.count) different states") }
        if versions.count > 1 { reasons.append("the nodes hold \(versions.count) different version vectors") }
        return (listings, reasons.joined(separator: "; "))
    }

    /// The violations of the end state, given what the ledger recorded.
    func check(_ healed: Healed, _ record: ChaosLedger.Record) -> [String] {
        var violations = healed.failures
        if !healed.quiet {
            violations.append("not quiet \(Int(healed.seconds)) s after healing began: \(healed.reason)")
            violations += differences(healed.listings)
        }
        guard let final = cluster.nodes.lazy.compactMap({ healed.listings[$0.name] ?? nil }).first else {
            return violations + ["no node listed its galleries"]
        }
        let items = final.byID
        var seen: [String: Int] = [:]
        for item in final.items { seen[item.id, default: 0] += 1 }
        for (id, count) in seen where count > 1 { violations.append("item \(id) is listed \(count) times") }
        for item in final.items where item.state != "ready" {
            violations.append("item \(item.id) in \(item.gallery) is still a \(item.state)")
        }
        for (id, how) in record.created.sorted(by: { $0.key < $1.key })
        where items[id] == nil && record.removers[id, default: 0] == 0 {
            violations.append("item \(id) (\(how), acknowledged) is gone, though no command that could remove it was issued")
        }
        for id in record.deleted.sorted() where items[id] != nil {
            violations.append("item \(id) is present, though its delete was acknowledged")
        }
        for id in record.cancelled.sorted() where items[id] != nil {
            violations.append("item \(id) is present, though the cancel of its transfer was acknowledged")
        }
        for gallery in record.galleries.sorted() where !final.galleries.contains(gallery) {
            violations.append("gallery \(gallery) is missing, though its new-gallery was acknowledged")
        }
        // Copies keep their source's title at the drop: only added items' titles are known.
        for (id, how) in record.created.sorted(by: { $0.key < $1.key }) where how.hasPrefix("add") {
            let titles = record.titles[id] ?? []
            if let item = items[id], !titles.contains(item.title ?? "") {
                violations.append("item \(id) is titled \(item.title ?? "null"), which no command asked for")
            }
        }
        violations += checkMoves(record, items)
        violations += checkBytes(final)
        return violations
    }

    /// A `--move` drag's source is gone once its copy is committed, and only then.
    private func checkMoves(_ record: ChaosLedger.Record, _ items: [String: ChaosListing.Item]) -> [String] {
        var violations: [String] = []
        for drop in record.drops where drop.move && drop.action != "moved" {
            let sourceHere = items[drop.source] != nil
            let copy = items[drop.item]
            let committed = drop.action == "committed" || drop.outcome == "committed"
                || (drop.action == "placeholder" && copy?.state == "ready")
            let failed = (drop.outcome.map { $0 != "committed" } ?? false) || record.cancelled.contains(drop.item)
            // This drag is one remover of its source; only another could have removed it.
            let removedByOthers = record.removers[drop.source, default: 0] > 1
            if committed && sourceHere {
                violations.append("the --move drag of \(drop.source) on \(drop.node) committed \(drop.item), yet the source is still present")
            }
            if failed && !sourceHere && !removedByOthers {
                violations.append("the --move drag of \(drop.source) on \(drop.node) failed (\(drop.outcome ?? "cancelled")), yet the source is gone")
            }
            if !sourceHere && copy == nil && !removedByOthers && record.removers[drop.item, default: 0] == 0 {
                violations.append("the --move drag of \(drop.source) on \(drop.node) left it in neither place (copy \(drop.item))")
            }
        }
        return violations
    }

    /// Every ready item with a hash has its bytes on some node, and they hash to it wherever they are.
    private func checkBytes(_ final: ChaosListing) -> [String] {
        var violations: [String] = []
        var checked: [String: Bool] = [:]
        for item in final.items where item.state == "ready" {
            guard let hash = item.hash else { continue }
            var holders = 0
            for node in cluster.nodes {
                let path = node.directory.appendingPathComponent("blobs/\(hash.prefix(2))/\(hash)").path
                guard FileManager.default.fileExists(atPath: path) else { continue }
                holders += 1
                if checked[path] == nil {
                    let (digest, size) = Self.sha256(ofFile: path)
                    checked[path] = digest == hash && size == item.bytes
                    if checked[path] == false {
                        violations.append("\(node.name) holds \(size) bytes hashing to \(digest) for item \(item.id) (hash \(hash), \(item.bytes ?? -1) bytes)")
                    }
                }
            }
            if holders == 0 { violations.append("no node holds the bytes of ready item \(item.id) (hash \(hash))") }
        }
        return violations
    }

    /// Which nodes differ from the first, and on which items.
    private func differences(_ listings: [String: ChaosListing?]) -> [String] {
        let named = cluster.nodes.compactMap { node in (listings[node.name] ?? nil).map { (node.name, $0) } }
        guard let (firstName, first) = named.first else { return [] }
        let reference = first.byID
        var lines: [String] = []
        for (name, listing) in named.dropFirst() where listing.canonical != first.canonical {
            let here = listing.byID
            let missing = reference.keys.filter { here[$0] == nil }.sorted()
            let extra = here.keys.filter { reference[$0] == nil }.sorted()
            let moved = here.compactMap { id, item -> String? in
                guard let other = reference[id], other.gallery != item.gallery || other.index != item.index
                        || other.state != item.state || other.title != item.title else { return nil }
                return "\(id) \(item.gallery):\(item.index)/\(item.state) vs \(other.gallery):\(other.index)/\(other.state)"
            }
            lines.append("\(name) differs from \(firstName): lacks \(missing.prefix(10)), has more \(extra.prefix(10)), "
                + "elsewhere \(moved.prefix(10)), galleries \(listing.galleries) vs \(first.galleries)")
        }
        return lines
    }

    /// The SHA-256 (lowercase hex) and size of a file, read in 1 MiB pieces.
    static func sha256(ofFile path: String) -> (String, Int) {
        guard let handle = FileHandle(forReadingAtPath: path) else { return ("unreadable", -1) }
        defer { try? handle.close() }
        var hasher = SHA256()
        var size = 0
        while let data = try? handle.read(upToCount: 1 << 20), !data.isEmpty {
            size += data.count
            data.withUnsafeBytes { hasher.update($0) }
        }
        return (SHA256.hex(hasher.finalize()), size)
    }
}
