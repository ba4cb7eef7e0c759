/**
 * Runs the public TypeScript port of the AttuneBench scorer (GitHub CasingAI/instant-os,
 * src/apps/attunebench/; fetched into src/ by fetch_port.py, bundled by build.mjs into
 * harness.js) on a built cohort:
 *
 *   node harness.js <conversations_dir> <predictions_dir>
 *   PORT_DUMP=scores.jsonl node harness.js <conversations_dir> <predictions_dir>
 *
 * Calls the port the way its own app does:
 * - gold conversations: JSON.parse + parseConversationData (types.ts), as dataset.ts does;
 * - EM outputs: JSON.parse, used as EMRunOutput without further parsing, as storage.ts's
 *   getCompletedOutputs hands IndexedDB objects to the report (the port has no EM-output parser);
 * - scoring: computeReportScores (report.tsx) = scoreConversation (scorer.ts) per output, with
 *   unmatched/throwing outputs skipped; then computeZScores(aggregateConversations(scores))
 *   (scorer.ts), as AttuneBenchReportView does (here over all models' scores together).
 * Anything the port skips is reported on stderr (file + reason), never silently dropped.
 * Prints one line per model (its aggregates); benchmarks/bench_port.py times this.
 *
 * With PORT_DUMP=<file> it also writes one JSON line per scored (model, conversation):
 * {model, file, <ConversationScore flattened>}, nested objects joined with '.', turn_scores
 * left out, non-finite numbers as the strings "NaN"/"Infinity"/"-Infinity" (JSON has none).
 * compare_port.py reads it. Each output is then scored a second time, alone (to know which
 * file each score came from), so do not time a run with PORT_DUMP.
 */
import fs from 'node:fs'
import path from 'node:path'

import { computeReportScores } from './src/report.tsx'
import { aggregateConversations, computeZScores, scoreConversation } from './src/scorer.ts'
import { parseConversationData, type ConversationData, type EMRunOutput } from './src/types.ts'

function jsonFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.json'))
    .map((e) => path.join(dir, e.name))
    .sort()
}

type Flat = Record<string, number | string | boolean | null>
function flatten(obj: unknown, prefix: string, out: Flat): Flat {
  if (obj === null || obj === undefined) {
    if (prefix) out[prefix] = null
  } else if (typeof obj === 'number') {
    out[prefix] = Number.isFinite(obj) ? obj : String(obj)
  } else if (typeof obj === 'string' || typeof obj === 'boolean') {
    out[prefix] = obj
  } else if (Array.isArray(obj)) {
    // only turn_scores is an array in ConversationScore; it is left out
  } else if (typeof obj === 'object') {
    for (const [k, v] of Object.entries(obj as Record<string, unknown>)) {
      if (k === 'turn_scores') continue
      flatten(v, prefix ? `${prefix}.${k}` : k, out)
    }
  }
  return out
}

function main(): number {
  const dumpPath = process.env.PORT_DUMP
  const dumpFd = dumpPath ? fs.openSync(dumpPath, 'w') : null
  const [convDir, predDir] = process.argv.slice(2)
  if (!convDir || !predDir) {
    process.stderr.write('usage: node harness.js <conversations_dir> <predictions_dir>\n')
    return 2
  }

  // --- gold conversations ---
  const conversations: ConversationData[] = []
  let convRejected = 0
  for (const file of jsonFiles(convDir)) {
    let parsed: ConversationData | null = null
    try {
      parsed = parseConversationData(JSON.parse(fs.readFileSync(file, 'utf8')))
    } catch (error) {
      process.stderr.write(`rejected conversation ${file}: ${String(error)}\n`)
    }
    if (parsed) conversations.push(parsed)
    else {
      convRejected += 1
      process.stderr.write(`rejected conversation ${file}: parseConversationData returned null\n`)
    }
  }
  const convById = new Map(conversations.map((c) => [c.conversationId, c]))

  // --- predictions: <pred>/<model>/default/{*.json, <shard>/*.json} ---
  const models = fs
    .readdirSync(predDir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort()

  const allScores = []
  const perModel: Array<{ model: string; files: number; unreadable: number; scored: number; emModels: Set<string> }> = []
  let totalRejected = 0
  for (const model of models) {
    const modeDir = path.join(predDir, model, 'default')
    if (!fs.existsSync(modeDir)) continue
    const files = jsonFiles(modeDir)
    for (const e of fs.readdirSync(modeDir, { withFileTypes: true })) {
      if (e.isDirectory()) files.push(...jsonFiles(path.join(modeDir, e.name)))
    }

    const outputs: EMRunOutput[] = []
    const outputFiles: string[] = []
    let unreadable = 0
    for (const file of files) {
      try {
        outputs.push(JSON.parse(fs.readFileSync(file, 'utf8')) as EMRunOutput)
        outputFiles.push(file)
      } catch (error) {
        unreadable += 1
        process.stderr.write(`rejected EM output ${file}: ${String(error)}\n`)
      }
    }

    const scores = computeReportScores(conversations, outputs)
    if (dumpFd !== null) {
      // Same calls as above, one output at a time, to know which file each score came from
      // (computeReportScores is a per-output map that skips unmatched/throwing outputs).
      const lines: string[] = []
      for (let i = 0; i < outputs.length; i += 1) {
        const one = computeReportScores(conversations, [outputs[i]])
        for (const sc of one) {
          lines.push(JSON.stringify(flatten(sc, '', { model, file: outputFiles[i] })))
        }
      }
      if (lines.length) fs.writeSync(dumpFd, lines.join('\n') + '\n')
    }
    if (scores.length !== outputs.length) {
      // computeReportScores skips silently; find out which files and why (failure path only).
      for (let i = 0; i < outputs.length; i += 1) {
        const conv = convById.get(outputs[i].conversationId)
        if (!conv) {
          process.stderr.write(`rejected EM output ${outputFiles[i]}: no gold conversation ${outputs[i].conversationId}\n`)
          continue
        }
        try {
          scoreConversation(conv, outputs[i])
        } catch (error) {
          process.stderr.write(`rejected EM output ${outputFiles[i]}: ${String(error)}\n`)
        }
      }
    }
    totalRejected += unreadable + (outputs.length - scores.length)
    allScores.push(...scores)
    perModel.push({ model, files: files.length, unreadable, scored: scores.length, emModels: new Set(scores.map((s) => s.em_model)) })
  }

  const aggregated = computeZScores(aggregateConversations(allScores))
  const byEmModel = new Map(aggregated.map((r) => [`${r.em_model}\u0000${r.mode}`, r]))

  process.stdout.write(
    `conversations ${conversations.length} (rejected ${convRejected}); models ${perModel.length}; ` +
      `EM files ${perModel.reduce((a, m) => a + m.files, 0)}; scored ${allScores.length}; rejected ${totalRejected}\n`,
  )
  for (const m of perModel) {
    const rows = [...byEmModel.values()].filter((r) => m.emModels.has(r.em_model))
    for (const r of rows) {
      process.stdout.write(
        `${m.model.padEnd(10)} files=${m.files} scored=${m.scored} rejected=${m.files - m.scored} ` +
          `em_model=${r.em_model} mode=${r.mode} n=${r.n_conversations} ` +
          `composite=${r.composite_score.toFixed(4)} equal_wt=${r.equal_weight_composite.toFixed(4)} ` +
          `turn_avg=${r.turn_level_average.toFixed(4)} conv_wide_avg=${r.conversation_wide_average.toFixed(4)} ` +
          `emotion_f1=${r.avg_emotion_f1.toFixed(4)} binary_om=${r.avg_binary_om_accuracy.toFixed(4)} ` +
          `pairwise=${r.avg_pairwise_accuracy.toFixed(4)} z=${(r.z_score ?? NaN).toFixed(4)}\n`,
      )
    }
    if (rows.length === 0) {
      process.stdout.write(`${m.model.padEnd(10)} files=${m.files} scored=0 rejected=${m.files}\n`)
    }
  }
  if (dumpFd !== null) fs.closeSync(dumpFd)
  return 0
}

process.exitCode = main()
