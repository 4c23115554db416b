"""Parameters both acts leave open; each municipality seeds them with its own act and date.

Every value here is a reading recorded in docs/LEITURAS.md, seção 1; municipal IT replaces
it by adding a new dated version when an instruction or decree fixes it.
"""
from __future__ import annotations

from datetime import date

from rules.params import ParameterVersion

SILENT = "omisso no ato; leitura do sistema (docs/LEITURAS.md, seção 1)"


def common_parameters(effective: date, act: str) -> tuple[ParameterVersion, ...]:
    def version(name: str, value: object, note: str) -> ParameterVersion:
        return ParameterVersion(name, effective, value, act, f"{note} — {SILENT}")

    return (
        version("criminal_certificate_days", 90,
                "Dias de validade da certidão de antecedentes sem validade impressa"),
        version("tax_certificate_days", 30,
                "Dias de validade da certidão de débitos municipais sem validade impressa"),
        version("medical_certificate_days", 180, "Dias de validade do atestado médico"),
        version("residence_proof_days", 90, "Idade máxima do comprovante de residência, em dias"),
        version("inspection_call_days", 5, "Dias para comparecer à vistoria extraordinária convocada"),
        version("defence_period_days", 30, "Dias para defesa, contados da juntada da notificação"),
        version("recurrence_window_months", 12, "Meses em que uma nova infração configura reincidência"),
        version("fine_due_days", 30, "Dias para pagar o DAM da multa do auto de infração, contados da emissão"),
        version("issqn_due_day", 10, "Dia do mês seguinte em que vence o ISSQN mensal da plataforma"),
        version("dpvat_required", True, "Exigir comprovação do seguro DPVAT"),
    )
