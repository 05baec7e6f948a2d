#include "fastenough/rundir/meta_facts.h"

#include <simdjson.h>

#include "fastenough/report/report_json.h"
#include "fastenough/rundir/json_fields.h"
#include "fastenough/rundir/run_files.h"

namespace fastenough::rundir {

namespace dom = simdjson::dom;

MetaFacts ReadMeta(const std::string& path, std::vector<std::string>* problems) {
  MetaFacts m;
  std::optional<std::string> text = ReadFile(path, "meta.json", problems);
  if (!text) return m;
  dom::parser parser;
  dom::object o;
  if (parser.parse(*text).get_object().get(o) != simdjson::SUCCESS) {
    problems->push_back("meta.json: not a JSON object; ignored");
    return m;
  }
  StatusOr<report::MetaRecord> record = report::MetaRecordFromJson(*text);
  if (record.ok()) {
    m.record = std::move(record).value();
  } else {
    problems->push_back("meta.json: " + record.status().message() +
                        "; its record is left out of the report");
  }
  dom::array cmd;
  if (o["command"].get_array().get(cmd) == simdjson::SUCCESS) {
    for (dom::element e : cmd) {
      std::string_view s;
      if (e.get_string().get(s) == simdjson::SUCCESS) m.command.emplace_back(s);
    }
  }
  std::string_view cwd;
  if (o["cwd"].get_string().get(cwd) == simdjson::SUCCESS) m.cwd = cwd;
  bool trace = true;
  if (o["agent_opts"]["trace"].get_bool().get(trace) == simdjson::SUCCESS) m.trace_wanted = trace;
  m.start_wall_ns = IntField(o, "start_wall_ns");
  m.end_wall_ns = IntField(o, "end_wall_ns");
  m.exit_status = IntField(o, "exit_status");
  m.signal = IntField(o, "signal");
  dom::array phys;
  if (o["visible_devices"]["physical"].get_array().get(phys) == simdjson::SUCCESS) {
    for (dom::element e : phys) m.visible_physical.push_back(static_cast<int>(Int(e).value_or(-1)));
  }
  dom::array others;
  if (o["other_processes"].get_array().get(others) == simdjson::SUCCESS) {
    for (dom::element e : others) {
      dom::object p;
      if (e.get_object().get(p) != simdjson::SUCCESS) continue;
      MetaFacts::Other x;
      std::string_view s;
      if (p["source"].get_string().get(s) == simdjson::SUCCESS) x.source = s;
      x.device = static_cast<int>(IntField(p, "device").value_or(-1));
      x.pid = IntField(p, "pid").value_or(0);
      x.max_used_bytes = IntField(p, "max_used_bytes").value_or(-1);
      m.others.push_back(x);
    }
  }
  return m;
}

}  // namespace fastenough::rundir
