#include "daemon/logging.h"

#include <spdlog/sinks/base_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <syslog.h>
#include <systemd/sd-journal.h>

#include <cstdlib>
#include <mutex>
#include <string>

namespace smsupd {
namespace {

int SyslogPriority(spdlog::level::level_enum level) {
  switch (level) {
    case spdlog::level::trace:
    case spdlog::level::debug: return LOG_DEBUG;
    case spdlog::level::info: return LOG_INFO;
    case spdlog::level::warn: return LOG_WARNING;
    case spdlog::level::err: return LOG_ERR;
    case spdlog::level::critical: return LOG_CRIT;
    default: return LOG_INFO;
  }
}

// Sends each line with sd_journal_send so the stable ID becomes a field.
class JournalSink : public spdlog::sinks::base_sink<std::mutex> {
 public:
  explicit JournalSink(std::string instance) : instance_(std::move(instance)) {}

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    std::string text(msg.payload.data(), msg.payload.size());
    std::string id(MessageId(text));
    sd_journal_send("MESSAGE=%s", text.c_str(), "PRIORITY=%d", SyslogPriority(msg.level),
                    "SYSLOG_IDENTIFIER=smsupd", "SMSUPD_INSTANCE=%s", instance_.c_str(),
                    id.empty() ? nullptr : "SMSUPD_MESSAGE_ID=%s", id.c_str(), nullptr);
  }
  void flush_() override {}

 private:
  std::string instance_;
};

}  // namespace

LogTarget DetectLogTarget() {
  if (std::getenv("JOURNAL_STREAM") || std::getenv("INVOCATION_ID")) return LogTarget::kJournal;
  return LogTarget::kStderr;
}

void SetUpLogging(LogTarget target, std::string_view instance) {
  std::shared_ptr<spdlog::logger> logger;
  if (target == LogTarget::kJournal) {
    logger = std::make_shared<spdlog::logger>("smsupd",
                                              std::make_shared<JournalSink>(std::string(instance)));
  } else {
    logger = spdlog::stderr_color_mt("smsupd");
    logger->set_pattern("%Y-%m-%dT%H:%M:%S.%e [" + std::string(instance) + "] %^%l%$ %v");
  }
  spdlog::set_default_logger(logger);
  spdlog::flush_on(spdlog::level::info);
}

std::string_view MessageId(std::string_view message) {
  size_t end = 0;
  while (end < message.size() &&
         ((message[end] >= 'A' && message[end] <= 'Z') || message[end] == '_' ||
          (end > 0 && message[end] >= '0' && message[end] <= '9')))
    ++end;
  bool whole_word = end == message.size() || message[end] == ' ';
  if (end < 3 || !whole_word || message.substr(0, end).find('_') == std::string_view::npos)
    return {};
  return message.substr(0, end);
}

}  // namespace smsupd
